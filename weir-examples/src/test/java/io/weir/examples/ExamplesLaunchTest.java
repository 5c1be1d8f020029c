package io.weir.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The examples jar's launcher: an example by name, or a message naming every example. */
class ExamplesLaunchTest {

  @Test
  void anUnknownOrMissingNameIsRefusedNamingEveryExample() {
    assertThatThrownBy(() -> Examples.main(new String[] {"PageViewCont", "--rate", "1"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("No example named 'PageViewCont'")
        .hasMessageContaining("PageViewCount, WindowedPageViews, WordCount");
    assertThatThrownBy(() -> Examples.main(new String[0]))
        .hasMessageStartingWith("No example named: give one of PageViewCount");
  }

  @Test
  void everyExampleClassHasItsName() {
    for (String name : Examples.EXAMPLES.keySet()) {
      assertThat(Examples.class.getClassLoader().getResource("io/weir/examples/" + name + ".class"))
          .as(name)
          .isNotNull();
    }
  }
}
