package io.weir.api.graph;

import io.weir.api.OutputTag;
import java.util.List;

/** The side output {@code tag} of an operator: virtual, it becomes the tag on edges. */
public final class SideOutputTransformation<T> extends Transformation<T> {

  private final Transformation<?> input;
  private final OutputTag<T> tag;

  public SideOutputTransformation(Transformation<?> input, OutputTag<T> tag) {
    super("Side Output " + tag.getId(), tag.getTypeInfo(), input.getParallelism());
    this.input = input;
    this.tag = tag;
  }

  public Transformation<?> getInput() {
    return input;
  }

  public OutputTag<T> getTag() {
    return tag;
  }

  @Override
  public List<Transformation<?>> getInputs() {
    return List.of(input);
  }
}
