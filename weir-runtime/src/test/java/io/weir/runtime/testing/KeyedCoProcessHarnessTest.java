package io.weir.runtime.testing;

import io.weir.api.StreamEnvironment;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedCoProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.testing.matrix.MatrixCell;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A keyed co-process function on two inputs, in a fixed interleaving: orders on input 1 wait for
 * their customer's credit on input 2; both sides live in keyed state.
 */
@Timeout(60)
@TestMatrix(skip = MatrixCell.ROCKSDB_INCREMENTAL)
class KeyedCoProcessHarnessTest {

  record Order(String customer, long amount) {}

  record Credit(String customer, long amount) {}

  /** Accepts an order when the customer's credit covers it, else parks it until credit comes. */
  static final class Approvals extends KeyedCoProcessFunction<String, Order, Credit, String> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> credit;
    private transient ListState<Long> parked;

    @Override
    public void open(OpenContext openContext) {
      credit = getRuntimeContext().getState(new ValueStateDescriptor<>("credit", Types.LONG, 0L));
      parked = getRuntimeContext().getListState(new ListStateDescriptor<>("parked", Types.LONG));
    }

    @Override
    public void processElement1(Order order, Context ctx, Collector<String> out) throws Exception {
      if (credit.value() >= order.amount()) {
        credit.update(credit.value() - order.amount());
        out.collect(ctx.getCurrentKey() + " approved " + order.amount());
      } else {
        parked.add(order.amount());
        out.collect(ctx.getCurrentKey() + " parked " + order.amount());
      }
    }

    @Override
    public void processElement2(Credit c, Context ctx, Collector<String> out) throws Exception {
      credit.update(credit.value() + c.amount());
      List<Long> still = new ArrayList<>();
      for (Long amount : parked.get()) {
        if (credit.value() >= amount) {
          credit.update(credit.value() - amount);
          out.collect(ctx.getCurrentKey() + " approved " + amount + " (parked)");
        } else {
          still.add(amount);
        }
      }
      parked.update(still);
      out.collect(ctx.getCurrentKey() + " credit " + credit.value());
    }
  }

  static final List<Order> ORDERS =
      List.of(
          new Order("ann", 50),
          new Order("bob", 10),
          new Order("ann", 30),
          new Order("bob", 5),
          new Order("ann", 20));

  static final List<Credit> CREDITS =
      List.of(new Credit("bob", 12), new Credit("ann", 60), new Credit("ann", 100));

  static final List<String> EXPECTED =
      List.of(
          "ann parked 50",
          "bob credit 12",
          "bob approved 10",
          "ann approved 50 (parked)",
          "ann credit 10",
          "ann parked 30",
          "bob parked 5",
          "ann approved 30 (parked)",
          "ann credit 80",
          "ann approved 20");

  @Test
  void ordersWaitForCredit() {
    OperatorHarness.forKeyedCoProcess(
            new Approvals(), Order::customer, Credit::customer, Types.STRING, Types.STRING)
        .inputs(ORDERS, CREDITS, "12121121")
        .expectOutput(EXPECTED)
        .verify();
  }

  @Test
  void elementByElement() {
    OperatorHarness.forKeyedCoProcess(
            new Approvals(), Order::customer, Credit::customer, Types.STRING, Types.STRING)
        .element1(ORDERS.get(0))
        .element2(CREDITS.get(0))
        .element1(ORDERS.get(1))
        .element2(CREDITS.get(1))
        .element1(ORDERS.get(2))
        .element1(ORDERS.get(3))
        .element2(CREDITS.get(2))
        .element1(ORDERS.get(4))
        .expectOutput(EXPECTED)
        .verify();
  }

  @Test
  void builtWithTheDataStreamApi() {
    StreamEnvironment env = StreamEnvironment.create();
    var orders = env.fromCollection(ORDERS, Types.RECORD(Order.class));
    var credits = env.fromCollection(CREDITS, Types.RECORD(Credit.class));
    var approvals =
        orders.connect(credits).keyBy(Order::customer, Credit::customer).process(new Approvals());
    OperatorHarness.<Order, Credit, String>forTwoInputStream(approvals)
        .inputs(ORDERS, CREDITS, "12121121")
        .expectOutput(EXPECTED)
        .verify();
  }
}
