package io.weir.examples;

import io.weir.api.DataStream;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedCoProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;

/**
 * A two-input, join-like example: orders and shipments arrive on two streams in any order; the
 * keyed co-process function keeps whichever side came first and emits one line per matched order.
 */
public final class OrderShipmentJoin {

  private OrderShipmentJoin() {}

  /** An order placed. */
  public record Order(long orderId, String item) {}

  /** A shipment of an order. */
  public record Shipment(long orderId, String carrier) {}

  /** Matches orders with shipments by order id. */
  public static final class Matcher extends KeyedCoProcessFunction<Long, Order, Shipment, String> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Order> order;
    private transient ValueState<Shipment> shipment;

    @Override
    public void open(OpenContext openContext) {
      order = getRuntimeContext().getState(new ValueStateDescriptor<>("order", Order.class));
      shipment =
          getRuntimeContext().getState(new ValueStateDescriptor<>("shipment", Shipment.class));
    }

    @Override
    public void processElement1(Order value, Context ctx, Collector<String> out) throws Exception {
      Shipment s = shipment.value();
      if (s == null) {
        order.update(value);
      } else {
        shipment.clear();
        out.collect(line(value, s));
      }
    }

    @Override
    public void processElement2(Shipment value, Context ctx, Collector<String> out)
        throws Exception {
      Order o = order.value();
      if (o == null) {
        shipment.update(value);
      } else {
        order.clear();
        out.collect(line(o, value));
      }
    }

    private static String line(Order o, Shipment s) {
      return "order " + o.orderId() + " (" + o.item() + ") shipped by " + s.carrier();
    }
  }

  /** The pipeline: one line per order that has been shipped. */
  public static DataStream<String> matched(DataStream<Order> orders, DataStream<Shipment> ships) {
    return orders
        .keyBy(Order::orderId, Types.LONG)
        .connect(ships.keyBy(Shipment::orderId, Types.LONG))
        .process(new Matcher())
        .name("Match Orders");
  }

  public static void main(String[] args) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    DataStream<Order> orders =
        env.fromSequence(1, 10).map(i -> new Order(i, "item-" + i)).name("Orders");
    DataStream<Shipment> shipments =
        env.fromSequence(1, 10)
            .filter(i -> i % 2 == 0)
            .map(i -> new Shipment(i, i % 4 == 0 ? "rail" : "road"))
            .name("Shipments");
    matched(orders, shipments).print();
    env.execute("order-shipment-join");
  }
}
