package io.weir.api.tuple;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TupleTest {

  @Test
  void toStringLooksLikeFlink() {
    assertThat(Tuple2.of("a", 1L)).hasToString("(a,1)");
    assertThat(Tuple3.of("a", null, 2)).hasToString("(a,null,2)");
    assertThat(Tuple4.of(1, 2, 3, 4)).hasToString("(1,2,3,4)");
    assertThat(Tuple5.of(1, 2, 3, 4, new int[] {5, 6})).hasToString("(1,2,3,4,[5, 6])");
    assertThat(new Tuple2<>()).hasToString("(null,null)");
  }

  @Test
  void equalityAndHashCodeFollowTheFields() {
    assertThat(Tuple2.of("a", 1L)).isEqualTo(new Tuple2<>("a", 1L));
    assertThat(Tuple2.of("a", 1L).hashCode()).isEqualTo(new Tuple2<>("a", 1L).hashCode());
    assertThat(Tuple2.of("a", 1L)).isNotEqualTo(Tuple2.of("a", 2L));
    assertThat(Tuple2.of("a", null)).isEqualTo(Tuple2.of("a", null));
    assertThat(Tuple3.of(1, 2, 3)).isNotEqualTo(Tuple4.of(1, 2, 3, null));
    // Flink's formula, so key groups match Flink's for the same keys.
    assertThat(Tuple2.of("a", 1L).hashCode()).isEqualTo(31 * "a".hashCode() + Long.hashCode(1L));
  }

  @Test
  void fieldsByPosition() {
    Tuple5<String, Integer, Long, Double, Boolean> t = new Tuple5<>();
    for (int i = 0; i < t.getArity(); i++) {
      assertThat((Object) t.getField(i)).isNull();
    }
    t.setField(0, "x");
    t.setField(4, true);
    assertThat(t.f0).isEqualTo("x");
    assertThat(t.f4).isTrue();
    assertThat((String) t.getField(0)).isEqualTo("x");
    assertThatThrownBy(() -> t.getField(5)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> t.setField(-1, 1)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> t.getFieldNotNull(1)).hasMessageContaining("f1");
  }

  @Test
  void copiesAreShallowAndIndependent() {
    Tuple2<String, Long> original = Tuple2.of("a", 1L);
    Tuple2<String, Long> copy = original.copy();
    copy.f1 = 2L;
    assertThat(original.f1).isEqualTo(1L);
    assertThat(original.swap()).isEqualTo(Tuple2.of(1L, "a"));
  }

  @Test
  void arities() {
    for (int arity = 2; arity <= Tuple.MAX_ARITY; arity++) {
      Tuple t = Tuple.newInstance(arity);
      assertThat(t.getArity()).isEqualTo(arity);
      assertThat(t).isInstanceOf(Tuple.getTupleClass(arity));
    }
    assertThatThrownBy(() -> Tuple.newInstance(6)).hasMessageContaining("record");
  }
}
