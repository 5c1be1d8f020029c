package io.weir.api.graph;

import io.weir.api.typeutils.TypeInformation;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One node of the logical plan the API builds: a source, an operation on one or two inputs, a
 * repartitioning, or a union. The runtime turns the plan into a job graph. Built and mutated on the
 * user's thread only.
 */
public abstract sealed class Transformation<T>
    permits SourceTransformation,
        OneInputTransformation,
        TwoInputTransformation,
        PartitionTransformation,
        UnionTransformation,
        SideOutputTransformation {

  /** Parallelism not set on the operator: the environment's default applies. */
  public static final int DEFAULT_PARALLELISM = -1;

  private static final AtomicInteger ID_COUNTER = new AtomicInteger();

  private final int id;
  private String name;
  private String uid;
  private int parallelism;
  private TypeInformation<T> outputType;
  private ChainingStrategy chainingStrategy = ChainingStrategy.ALWAYS;
  private String slotSharingGroup;
  private int maxParallelism = DEFAULT_PARALLELISM;

  protected Transformation(String name, TypeInformation<T> outputType, int parallelism) {
    this.id = ID_COUNTER.incrementAndGet();
    this.name = name;
    this.outputType = outputType;
    this.parallelism = parallelism;
  }

  /** Unique within the JVM; orders transformations by creation. */
  public int getId() {
    return id;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("An operator name must not be empty");
    }
    this.name = name;
  }

  /** The stable id that maps this operator's state across job versions; null if not set. */
  public String getUid() {
    return uid;
  }

  public void setUid(String uid) {
    if (uid == null || uid.isBlank()) {
      throw new IllegalArgumentException("The uid of operator '" + name + "' must not be empty");
    }
    this.uid = uid;
  }

  public int getParallelism() {
    return parallelism;
  }

  public void setParallelism(int parallelism) {
    if (parallelism < 1) {
      throw new IllegalArgumentException(
          "The parallelism of operator '"
              + name
              + "' must be at least 1, but was "
              + parallelism
              + ".");
    }
    this.parallelism = parallelism;
  }

  public TypeInformation<T> getOutputType() {
    return outputType;
  }

  public void setOutputType(TypeInformation<T> outputType) {
    this.outputType = outputType;
  }

  /** Whether this operator may share a task with its neighbours; {@code ALWAYS} by default. */
  public ChainingStrategy getChainingStrategy() {
    return chainingStrategy;
  }

  public void setChainingStrategy(ChainingStrategy chainingStrategy) {
    this.chainingStrategy = java.util.Objects.requireNonNull(chainingStrategy);
  }

  /**
   * The slot sharing group set on this operator; null when not set, in which case the runtime takes
   * its inputs' group when they agree, else {@value #DEFAULT_SLOT_SHARING_GROUP}, as Flink.
   */
  public String getSlotSharingGroup() {
    return slotSharingGroup;
  }

  public void setSlotSharingGroup(String slotSharingGroup) {
    if (slotSharingGroup == null || slotSharingGroup.isBlank()) {
      throw new IllegalArgumentException(
          "The slot sharing group of operator '" + name + "' must not be empty");
    }
    this.slotSharingGroup = slotSharingGroup;
  }

  /** The slot sharing group of operators that name none and whose inputs disagree. */
  public static final String DEFAULT_SLOT_SHARING_GROUP = "default";

  /**
   * The number of key groups of this operator's keyed state; {@link #DEFAULT_PARALLELISM} when not
   * set, in which case {@code pipeline.max-parallelism} applies.
   */
  public int getMaxParallelism() {
    return maxParallelism;
  }

  public void setMaxParallelism(int maxParallelism) {
    if (maxParallelism < 1 || maxParallelism > (1 << 15)) {
      throw new IllegalArgumentException(
          "The max parallelism of operator '"
              + name
              + "' must be between 1 and 32768, but was "
              + maxParallelism
              + ".");
    }
    this.maxParallelism = maxParallelism;
  }

  public abstract List<Transformation<?>> getInputs();

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{id=" + id + ", name='" + name + "'}";
  }
}
