package io.weir.runtime.graph;

import io.weir.api.OutputTag;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import io.weir.api.graph.ChainingStrategy;
import io.weir.api.graph.KeyContext;
import io.weir.api.graph.OneInputTransformation;
import io.weir.api.graph.Operation;
import io.weir.api.graph.PartitionTransformation;
import io.weir.api.graph.Partitioning;
import io.weir.api.graph.Pipeline;
import io.weir.api.graph.SideOutputTransformation;
import io.weir.api.graph.SourceTransformation;
import io.weir.api.graph.Transformation;
import io.weir.api.graph.TwoInputTransformation;
import io.weir.api.graph.UnionTransformation;
import io.weir.api.typeutils.InvalidTypesException;
import io.weir.api.typeutils.TypeInformation;
import io.weir.runtime.network.CreditDepth;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns the API's plan into a {@link JobGraph}: resolves parallelism, replaces partitionings and
 * unions by edges, chains forward edges between operators of equal parallelism, and rejects bad
 * input (missing types, impossible parallelism) before any task starts.
 */
public final class JobGraphBuilder {

  private final Configuration configuration;
  private final int defaultParallelism;
  private final int maxParallelism;
  private final boolean chainingEnabled;
  private final Map<Integer, StreamNode> nodes = new TreeMap<>();
  private int edgeCount;

  private JobGraphBuilder(Configuration configuration) {
    this.configuration = configuration;
    this.defaultParallelism = configuration.get(CoreOptions.DEFAULT_PARALLELISM);
    this.maxParallelism = configuration.get(CoreOptions.MAX_PARALLELISM);
    this.chainingEnabled = configuration.get(CoreOptions.OPERATOR_CHAINING);
  }

  public static JobGraph build(Pipeline pipeline) {
    return new JobGraphBuilder(pipeline.configuration()).buildGraph(pipeline);
  }

  private JobGraph buildGraph(Pipeline pipeline) {
    if (defaultParallelism < 1) {
      throw new IllegalArgumentException(
          "parallelism.default must be at least 1, but was " + defaultParallelism);
    }
    if (maxParallelism < 1 || maxParallelism > (1 << 15)) {
      throw new IllegalArgumentException(
          "pipeline.max-parallelism must be between 1 and 32768, but was " + maxParallelism);
    }
    CreditDepth.of(configuration); // refuses impossible network settings before anything runs
    StreamEnvironment.checkRuntimeMode(configuration.get(CoreOptions.RUNTIME_MODE));
    for (Transformation<?> sink : pipeline.sinks()) {
      node(sink);
    }
    assignOperatorIds();
    validate();
    return new JobGraph(pipeline.jobName(), chain(), maxParallelism, configuration);
  }

  /** The node of an operator transformation, creating it and its inputs' edges on first visit. */
  private StreamNode node(Transformation<?> t) {
    StreamNode existing = nodes.get(t.getId());
    if (existing != null) {
      return existing;
    }
    int parallelism =
        t.getParallelism() == Transformation.DEFAULT_PARALLELISM
            ? defaultParallelism
            : t.getParallelism();
    int nodeMaxParallelism =
        t.getMaxParallelism() == Transformation.DEFAULT_PARALLELISM
            ? maxParallelism
            : t.getMaxParallelism();
    StreamNode node = new StreamNode(t, parallelism, nodeMaxParallelism);
    if (t instanceof OneInputTransformation<?, ?> one) {
      connect(one.getInput(), node, 0);
    } else if (t instanceof TwoInputTransformation<?, ?, ?> two) {
      connect(two.getInput1(), node, 0);
      connect(two.getInput2(), node, 1);
    } else if (!(t instanceof SourceTransformation<?>)) {
      throw new IllegalStateException("Not an operator: " + t);
    }
    node.setSlotSharingGroup(slotSharingGroup(node));
    nodes.put(t.getId(), node);
    return node;
  }

  /** The group set on the operator, else its inputs' group when they agree, else "default". */
  private static String slotSharingGroup(StreamNode node) {
    String own = node.getTransformation().getSlotSharingGroup();
    if (own != null) {
      return own;
    }
    java.util.Set<String> inputs = new java.util.HashSet<>();
    for (StreamEdge edge : node.inEdges) {
      inputs.add(edge.source().getSlotSharingGroup());
    }
    return inputs.size() == 1
        ? inputs.iterator().next()
        : Transformation.DEFAULT_SLOT_SHARING_GROUP;
  }

  private record Upstream(StreamNode node, Partitioning partitioning, OutputTag<?> tag) {}

  private void connect(Transformation<?> input, StreamNode target, int inputIndex) {
    for (Upstream up : resolve(input, null)) {
      Partitioning p = up.partitioning();
      boolean explicitForward = p instanceof Partitioning.Forward;
      if (p == null) {
        p =
            up.node().getParallelism() == target.getParallelism()
                ? new Partitioning.Forward()
                : new Partitioning.Rebalance();
      }
      StreamEdge edge =
          new StreamEdge(edgeCount++, up.node(), target, p, inputIndex, explicitForward, up.tag());
      up.node().outEdges.add(edge);
      target.inEdges.add(edge);
    }
  }

  /** The operators behind a (possibly virtual) transformation, with the partitioning to use. */
  private List<Upstream> resolve(Transformation<?> t, Partitioning outer) {
    return resolve(t, outer, null);
  }

  private List<Upstream> resolve(Transformation<?> t, Partitioning outer, OutputTag<?> tag) {
    if (t instanceof PartitionTransformation<?> p) {
      return resolve(p.getInput(), outer != null ? outer : p.getPartitioning(), tag);
    }
    if (t instanceof UnionTransformation<?> u) {
      List<Upstream> all = new ArrayList<>();
      for (Transformation<?> input : u.getUnionInputs()) {
        all.addAll(resolve(input, outer, tag));
      }
      return all;
    }
    if (t instanceof SideOutputTransformation<?> side) {
      Transformation<?> producer = side.getInput();
      if (tag != null
          || producer instanceof PartitionTransformation<?>
          || producer instanceof UnionTransformation<?>
          || producer instanceof SideOutputTransformation<?>) {
        throw new IllegalArgumentException(
            "getSideOutput("
                + side.getTag().getId()
                + ") must be called on the operator that emits it, not on '"
                + producer.getName()
                + "'");
      }
      return List.of(new Upstream(node(producer), outer, side.getTag()));
    }
    return List.of(new Upstream(node(t), outer, tag));
  }

  private void assignOperatorIds() {
    java.util.Set<String> uids = new java.util.HashSet<>();
    boolean generate = configuration.get(CoreOptions.AUTO_GENERATE_UIDS);
    int position = 0;
    for (StreamNode node : nodes.values()) {
      String uid = node.getUid();
      if (uid != null && !uids.add(uid)) {
        throw new IllegalArgumentException(
            "The uid '" + uid + "' is used by more than one operator; uids must be unique");
      }
      if (uid == null && !generate) {
        throw new IllegalArgumentException(
            "Operator '"
                + node.getName()
                + "' has no uid, and "
                + CoreOptions.AUTO_GENERATE_UIDS.key()
                + " is false: give it one with .uid(\"...\"), as every operator of this job"
                + " needs, or set "
                + CoreOptions.AUTO_GENERATE_UIDS.key()
                + " to true");
      }
      node.setOperatorId(
          uid != null
              ? uid
              : "auto-" + position + "-" + node.getName().replaceAll("[^A-Za-z0-9]+", "-"));
      position++;
    }
  }

  private void validate() {
    for (StreamNode node : nodes.values()) {
      if (node.getParallelism() > node.getMaxParallelism()) {
        boolean own =
            node.getTransformation().getMaxParallelism() != Transformation.DEFAULT_PARALLELISM;
        throw new IllegalArgumentException(
            "The parallelism "
                + node.getParallelism()
                + " of operator '"
                + node.getName()
                + "' is above "
                + (own ? "its" : "the")
                + " max parallelism "
                + node.getMaxParallelism()
                + ". Lower the parallelism, or raise the max parallelism with "
                + (own
                    ? "setMaxParallelism(n) on the operator."
                    : "env.setMaxParallelism(n) / pipeline.max-parallelism."));
      }
      boolean isSink =
          node.getTransformation() instanceof OneInputTransformation<?, ?> t
              && t.getOperation().isSink();
      if (!isSink) {
        requireType(node.getOutputType(), node);
      }
      if (node.getTransformation() instanceof SourceTransformation<?> source) {
        UserCode.checkSerializable(source.getSource(), node.getName());
      } else {
        UserCode.checkSerializable(node.getOperation().userObject(), node.getName());
        if (node.getOperation() instanceof Operation.SinkTo<?> sinkTo) {
          sinkTo.sink().validate(configuration);
        }
      }
      requireKeyType(node.getKeyContext1(), node);
      requireKeyType(node.getKeyContext2(), node);
      for (StreamEdge edge : node.inEdges) {
        if (edge.explicitForward()
            && edge.source().getParallelism() != edge.target().getParallelism()) {
          throw new IllegalArgumentException(
              "Forward partitioning needs equal parallelism, but '"
                  + edge.source().getName()
                  + "' has "
                  + edge.source().getParallelism()
                  + " and '"
                  + edge.target().getName()
                  + "' has "
                  + edge.target().getParallelism()
                  + ". Use rebalance() or make the parallelisms equal.");
        }
      }
    }
  }

  private static void requireType(TypeInformation<?> type, StreamNode node) {
    if (type == null) {
      throw new InvalidTypesException("The output type of '" + node.getName() + "' is unknown");
    }
    if (type.isMissing()) {
      type.createSerializer(); // throws the stored explanation
    }
  }

  private static void requireKeyType(KeyContext<?, ?> key, StreamNode node) {
    if (key != null && key.keyType().isMissing()) {
      key.keyType().createSerializer();
    }
  }

  /** Groups nodes into chains; nodes are visited in creation order, which is topological. */
  private List<JobVertex> chain() {
    Map<StreamNode, JobVertex> vertexOf = new HashMap<>();
    Map<Integer, JobVertex> vertices = new LinkedHashMap<>();
    List<StreamNode> ordered = new ArrayList<>(nodes.values());
    ordered.sort(Comparator.comparingInt(StreamNode::getId));
    for (StreamNode node : ordered) {
      if (node.inEdges.size() == 1 && isChainable(node.inEdges.get(0))) {
        JobVertex vertex = vertexOf.get(node.inEdges.get(0).source());
        vertex.addChained(node);
        vertexOf.put(node, vertex);
      } else {
        JobVertex vertex = new JobVertex(vertices.size(), node);
        vertices.put(vertex.getIndex(), vertex);
        vertexOf.put(node, vertex);
      }
    }
    for (StreamNode node : ordered) {
      for (StreamEdge edge : node.outEdges) {
        JobVertex producer = vertexOf.get(edge.source());
        JobVertex consumer = vertexOf.get(edge.target());
        if (producer != consumer) {
          JobEdge jobEdge = new JobEdge(producer, consumer, edge);
          producer.outputs.add(jobEdge);
          consumer.inputs.add(jobEdge);
        }
      }
    }
    return new ArrayList<>(vertices.values());
  }

  /**
   * Where Flink chains: a forward edge between operators of equal parallelism in the same slot
   * sharing group, into a one-input operator, with chaining enabled for the job, the producer not
   * {@code disableChaining()} and the consumer neither that nor {@code startNewChain()}.
   */
  private boolean isChainable(StreamEdge edge) {
    return chainingEnabled
        && edge.isForward()
        && edge.source().getParallelism() == edge.target().getParallelism()
        && !edge.target().isTwoInput()
        && edge.source().getChainingStrategy() != ChainingStrategy.NEVER
        && edge.target().getChainingStrategy() == ChainingStrategy.ALWAYS
        && edge.source().getSlotSharingGroup().equals(edge.target().getSlotSharingGroup());
  }
}
