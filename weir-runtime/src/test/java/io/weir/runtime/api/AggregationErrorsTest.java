package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.KeyedStream;
import io.weir.api.StreamEnvironment;
import io.weir.api.tuple.Tuple3;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A bad field position or name given to an aggregation fails at the call, naming the call, the
 * field and the type, and saying what would work.
 */
class AggregationErrorsTest {

  /** A POJO with a field that does not compare. */
  public static class Order {
    public String id;
    public double price;
    public List<String> tags;

    public Order() {}
  }

  public record Trade(String symbol, long volume) {}

  private static KeyedStream<Tuple3<String, Integer, Long>, String> tuples() {
    return StreamEnvironment.create()
        .fromData(List.of(Tuple3.of("a", 1, 2L)), Types.TUPLE(Types.STRING, Types.INT, Types.LONG))
        .keyBy(t -> t.f0, Types.STRING);
  }

  private static KeyedStream<Order, String> orders() {
    Order order = new Order();
    order.id = "o1";
    return StreamEnvironment.create()
        .fromData(List.of(order), TypeInformation.of(Order.class))
        .keyBy(o -> o.id, Types.STRING);
  }

  @Test
  void aPositionBeyondATuplesArity() {
    assertThatThrownBy(() -> tuples().sum(3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "sum(3) on Tuple3<String, Integer, Long>: there is no field at position 3; its"
                + " positions are 0 to 2");
    assertThatThrownBy(() -> tuples().countWindow(2).maxBy(-1))
        .hasMessage(
            "maxBy(-1) on Tuple3<String, Integer, Long>: the field position must not be negative");
  }

  @Test
  void aNameATupleDoesNotHave() {
    assertThatThrownBy(() -> tuples().min("price"))
        .hasMessage(
            "min(\"price\") on Tuple3<String, Integer, Long>: Tuple3 has no field 'price'; its"
                + " fields are f0, f1, f2");
  }

  @Test
  void sumOfAFieldThatIsNoNumber() {
    assertThatThrownBy(() -> tuples().sum("f0"))
        .hasMessage(
            "sum(\"f0\") on field 'f0' of Tuple3: the field is a String, not a number; sum adds"
                + " int, long, short, byte, float, double, BigInteger or BigDecimal fields");
  }

  @Test
  void aPojoFieldThatDoesNotExistOrDoesNotCompare() {
    assertThatThrownBy(() -> orders().max("prize"))
        .hasMessageContaining("max(\"prize\") on ")
        .hasMessageContaining("Order has no field 'prize'; its fields are id, price, tags");
    assertThatThrownBy(() -> orders().minBy("tags"))
        .hasMessage(
            "minBy(\"tags\") on field 'tags' of Order: the field is a java.util.List, which is not"
                + " Comparable; minBy needs a field whose values compare (numbers, strings,"
                + " Comparable classes)");
    assertThatThrownBy(() -> orders().sum(1))
        .hasMessageContaining(
            "field positions select the fields of tuples and records (and position 0 of"
                + " numbers); name the field of this POJO instead, such as sum(\"id\")");
  }

  @Test
  void aRecordComponentThatDoesNotExist() {
    assertThatThrownBy(
            () ->
                StreamEnvironment.create()
                    .fromData(new Trade("X", 1))
                    .keyBy(Trade::symbol, Types.STRING)
                    .window(io.weir.api.windowing.assigners.GlobalWindows.create())
                    .sum("price"))
        .hasMessageContaining("Trade has no field 'price'; its fields are symbol, volume");
  }

  @Test
  void aFieldOfANumber() {
    assertThatThrownBy(
            () -> StreamEnvironment.create().fromData(1L, 2L).keyBy(x -> x, Types.LONG).sum(1))
        .hasMessage(
            "sum(1) on Long: a stream of Long values has only position 0 (the value itself)");
    assertThatThrownBy(
            () -> StreamEnvironment.create().fromData(1L, 2L).countWindowAll(2).max("value"))
        .hasMessage(
            "max(\"value\") on Long: a stream of Long values has no field 'value'; use position 0"
                + " or \"*\" for the value itself");
  }

  @Test
  void countWindowOfNoElements() {
    assertThatThrownBy(() -> tuples().countWindow(0))
        .hasMessage("countWindow: the size must be at least 1 element, but was 0");
    assertThatThrownBy(() -> tuples().countWindow(3, 0))
        .hasMessage("countWindow: the slide must be at least 1 element, but was 0");
  }
}
