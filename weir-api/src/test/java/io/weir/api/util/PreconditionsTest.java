package io.weir.api.util;

import static io.weir.api.util.Preconditions.checkArgument;
import static io.weir.api.util.Preconditions.checkElementIndex;
import static io.weir.api.util.Preconditions.checkNotNull;
import static io.weir.api.util.Preconditions.checkState;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Flink's checks, with its message templates. */
class PreconditionsTest {

  @Test
  void passingChecksReturnWhatTheyChecked() {
    assertThat(checkNotNull("x")).isEqualTo("x");
    assertThat(checkNotNull("x", "never")).isEqualTo("x");
    assertThat(checkElementIndex(2, 3)).isEqualTo(2);
    checkArgument(true, "never %s", 1);
    checkState(true);
  }

  @Test
  void failingChecksThrowFlinksExceptionsWithTheTemplateFilledIn() {
    assertThatThrownBy(() -> checkNotNull(null, "state %s of %s", "A", "B"))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("state A of B");
    assertThatThrownBy(() -> checkArgument(false, "rate %s must be positive", -1, "extra"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rate -1 must be positive [extra]");
    assertThatThrownBy(() -> checkState(false, "closed"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("closed");
    assertThatThrownBy(() -> checkArgument(false, (Object) null)).hasMessage("null");
    assertThatThrownBy(() -> checkElementIndex(3, 3))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessage("Index: 3, Size: 3");
  }
}
