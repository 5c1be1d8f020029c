package io.weir.api;

import io.weir.api.typeutils.TypeExtractor;
import io.weir.api.typeutils.TypeInformation;
import java.io.Serializable;
import java.util.Objects;

/**
 * Names a side output of an operator: records of type {@code T} emitted next to the main output
 * (late records of a window, {@code ProcessWindowFunction.Context.output}), read with {@link
 * SingleOutputStreamOperator#getSideOutput}. Create it as an anonymous subclass so that its type is
 * kept, as in Flink: {@code new OutputTag<Event>("late") {}}, or give the type.
 *
 * <p>Two tags are equal when their ids are. The type is only needed where the job is built: a tag
 * copied into a subtask (inside a function) keeps its id.
 */
public class OutputTag<T> implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String id;
  private final transient TypeInformation<T> typeInfo;

  /** For an anonymous subclass, whose type argument gives the type. */
  public OutputTag(String id) {
    this.id = checkId(id);
    TypeInformation<T> type =
        TypeExtractor.getOutputType(this, OutputTag.class, 0, "OutputTag '" + id + "'");
    if (type.isMissing()) {
      throw new IllegalArgumentException(
          "The type of OutputTag '"
              + id
              + "' cannot be determined: create it as an anonymous subclass,"
              + " new OutputTag<Event>(\""
              + id
              + "\") {}, or with new OutputTag<>(\""
              + id
              + "\", Types.of(...))");
    }
    this.typeInfo = type;
  }

  public OutputTag(String id, TypeInformation<T> typeInfo) {
    this.id = checkId(id);
    this.typeInfo = Objects.requireNonNull(typeInfo, "type of OutputTag '" + id + "'");
  }

  private static String checkId(String id) {
    if (id == null || id.isBlank()) {
      throw new IllegalArgumentException("An OutputTag needs a non-empty id");
    }
    return id;
  }

  public String getId() {
    return id;
  }

  /** The type of the side output; null in a copy made for a subtask. */
  public TypeInformation<T> getTypeInfo() {
    return typeInfo;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OutputTag<?> other && other.id.equals(id);
  }

  @Override
  public int hashCode() {
    return id.hashCode();
  }

  @Override
  public String toString() {
    return "OutputTag(" + id + (typeInfo == null ? "" : ", " + typeInfo) + ")";
  }
}
