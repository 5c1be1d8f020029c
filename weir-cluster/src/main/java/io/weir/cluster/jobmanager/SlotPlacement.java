package io.weir.cluster.jobmanager;

import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.taskexecutor.TaskDeploymentDescriptor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Where the slots of one job attempt are and which subtask runs where, for every deployment with
 * TaskManagers: the cluster ({@link TaskManagerRegistry} takes the slots, {@link ClusterGateway}
 * deploys onto them) and the {@link io.weir.cluster.MiniCluster}.
 *
 * <p>An attempt takes, for each slot sharing group, as many slots as the group's widest vertex, and
 * the group's slot i runs subtask i of each of its vertices (Flink's slot sharing); the groups'
 * slots follow one another in the order their first vertices have in the graph, so a job in the one
 * group {@code "default"} takes as many slots as its widest vertex and slot i runs subtask i of
 * every vertex. The slots are taken from the TaskManagers in the order offered: packed onto as few
 * as possible, or spread one at a time over all of them ({@code cluster.evenly-spread-out-slots});
 * each TaskManager's slots are consecutive. A value without threads or clock: the caller keeps
 * track of which slots are free.
 *
 * @param <T> what a TaskManager is to the caller
 */
public final class SlotPlacement<T> {

  /**
   * A TaskManager with free slots, as offered to {@link #place}.
   *
   * @param taskManager which
   * @param freeSlots how many of its slots are free
   */
  public record Offer<T>(T taskManager, int freeSlots) {}

  /**
   * The slots an attempt takes on one TaskManager.
   *
   * @param taskManager which
   * @param slots how many
   */
  public record Share<T>(T taskManager, int slots) {}

  private final List<Share<T>> shares;
  private final List<T> bySlot;

  private SlotPlacement(List<Share<T>> shares) {
    this.shares = List.copyOf(shares);
    List<T> slots = new ArrayList<>();
    for (Share<T> share : shares) {
      for (int i = 0; i < share.slots(); i++) {
        slots.add(share.taskManager());
      }
    }
    this.bySlot = List.copyOf(slots);
  }

  /**
   * The slots an attempt of {@code graph} takes: per slot sharing group as many as its widest
   * vertex.
   */
  public static int slotsFor(JobGraph graph) {
    return Math.max(1, groupOffsets(graph).values().stream().mapToInt(g -> g[1]).sum());
  }

  /**
   * The slot that runs subtask {@code subtask} of vertex {@code vertex}: its group's first slot
   * plus the subtask index. Without a graph (descriptors built by hand), the subtask index.
   */
  public static int slotOf(JobGraph graph, int vertex, int subtask) {
    if (graph == null) {
      return subtask;
    }
    String group = graph.vertices().get(vertex).getSlotSharingGroup();
    return groupOffsets(graph).get(group)[0] + subtask;
  }

  /** Each slot sharing group's first slot and width, groups in the order of their first vertex. */
  private static Map<String, int[]> groupOffsets(JobGraph graph) {
    Map<String, int[]> groups = new LinkedHashMap<>();
    for (JobVertex vertex : graph.vertices()) {
      int[] group = groups.computeIfAbsent(vertex.getSlotSharingGroup(), g -> new int[2]);
      group[1] = Math.max(group[1], vertex.getParallelism());
    }
    int offset = 0;
    for (int[] group : groups.values()) {
      group[0] = offset;
      offset += group[1];
    }
    return groups;
  }

  /**
   * Takes {@code slots} of the free slots {@code offers} holds, in their order: packed onto as few
   * TaskManagers as possible, or with {@code spreadOut} one at a time over all of them.
   *
   * @return the placement, or null when the offers hold fewer free slots
   */
  public static <T> SlotPlacement<T> place(int slots, List<Offer<T>> offers, boolean spreadOut) {
    if (slots < 1) {
      throw new IllegalArgumentException("An attempt takes at least one slot, not " + slots);
    }
    int free = offers.stream().mapToInt(o -> Math.max(0, o.freeSlots())).sum();
    if (free < slots) {
      return null;
    }
    int[] taken = new int[offers.size()];
    int left = slots;
    if (spreadOut) {
      while (left > 0) {
        for (int i = 0; i < offers.size() && left > 0; i++) {
          if (taken[i] < offers.get(i).freeSlots()) {
            taken[i]++;
            left--;
          }
        }
      }
    } else {
      for (int i = 0; i < offers.size() && left > 0; i++) {
        taken[i] = Math.min(left, Math.max(0, offers.get(i).freeSlots()));
        left -= taken[i];
      }
    }
    List<Share<T>> shares = new ArrayList<>();
    for (int i = 0; i < offers.size(); i++) {
      if (taken[i] > 0) {
        shares.add(new Share<>(offers.get(i).taskManager(), taken[i]));
      }
    }
    return new SlotPlacement<>(shares);
  }

  /** The slots taken, one share per TaskManager, in the order of the offers. */
  public List<Share<T>> shares() {
    return shares;
  }

  /** Whether the attempt runs on more than one TaskManager (so some channels cross the network). */
  public boolean spansSeveralTaskManagers() {
    return shares.size() > 1;
  }

  /**
   * The TaskManager of slot {@code subtask}: the one that runs that subtask of every vertex of the
   * first slot sharing group (see {@link #slotOf} for the others).
   */
  public T taskManagerOf(int subtask) {
    if (subtask < 0 || subtask >= bySlot.size()) {
      throw new IllegalArgumentException(
          "Subtask " + subtask + " has no slot: the attempt holds " + bySlot.size());
    }
    return bySlot.get(subtask);
  }

  /** Where each subtask of {@code vertex} of {@code graph} runs: its TaskManager's address. */
  public List<String> addresses(JobGraph graph, JobVertex vertex, Function<T, String> address) {
    List<String> addresses = new ArrayList<>(vertex.getParallelism());
    for (int s = 0; s < vertex.getParallelism(); s++) {
      addresses.add(address.apply(taskManagerOf(slotOf(graph, vertex.getIndex(), s))));
    }
    return addresses;
  }

  /**
   * Where each subtask of a vertex of {@code parallelism} in the first slot sharing group runs: its
   * TaskManager's address.
   */
  public List<String> addresses(int parallelism, Function<T, String> address) {
    List<String> addresses = new ArrayList<>(parallelism);
    for (int s = 0; s < parallelism; s++) {
      addresses.add(address.apply(taskManagerOf(s)));
    }
    return addresses;
  }

  /** {@code descriptors} by the TaskManager that runs them, TaskManagers in slot order. */
  public Map<T, List<TaskDeploymentDescriptor>> byTaskManager(
      List<TaskDeploymentDescriptor> descriptors) {
    Map<T, List<TaskDeploymentDescriptor>> shares = new LinkedHashMap<>();
    for (TaskDeploymentDescriptor tdd : descriptors) {
      int slot = slotOf(tdd.graph(), tdd.id().vertex(), tdd.id().subtask());
      shares.computeIfAbsent(taskManagerOf(slot), k -> new ArrayList<>()).add(tdd);
    }
    return shares;
  }

  @Override
  public String toString() {
    return shares.toString();
  }
}
