package io.weir.api.typeutils;

import static io.weir.api.typeutils.SerializerChecks.checkValue;
import static io.weir.api.typeutils.SerializerChecks.deserialize;
import static io.weir.api.typeutils.SerializerChecks.serialize;
import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.functions.MapFunction;
import io.weir.api.tuple.Tuple2;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * Weir infers POJOs by Flink's rules wherever it derives a type ({@code TypeInformation.of}, type
 * hints, function signatures, nested in tuples, lists, maps and records) and keeps Kryo for the
 * classes that break them.
 */
class PojoInferenceTest {

  /** Public fields: a POJO. */
  public static class Order {
    public String id;
    public long amount;
    public List<String> tags;

    public Order() {}

    static Order of(String id, long amount) {
      Order o = new Order();
      o.id = id;
      o.amount = amount;
      o.tags = new ArrayList<>(List.of("t"));
      return o;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Order that
          && o.getClass() == getClass()
          && Objects.equals(id, that.id)
          && amount == that.amount
          && Objects.equals(tags, that.tags);
    }

    @Override
    public int hashCode() {
      return Objects.hash(id, amount);
    }
  }

  /** A subclass of a POJO, used where the POJO is declared: it keeps its class and its field. */
  public static class PriorityOrder extends Order {
    public int priority;

    public PriorityOrder() {}

    @Override
    public boolean equals(Object o) {
      return super.equals(o) && ((PriorityOrder) o).priority == priority;
    }

    @Override
    public int hashCode() {
      return super.hashCode();
    }
  }

  /** Private fields with bean getters and setters (an {@code is} getter, a fluent setter). */
  public static class Account {
    private String owner;
    private boolean active;
    private double balance;

    public Account() {}

    public String getOwner() {
      return owner;
    }

    public void setOwner(String owner) {
      this.owner = owner;
    }

    public boolean isActive() {
      return active;
    }

    public void setActive(boolean active) {
      this.active = active;
    }

    public double getBalance() {
      return balance;
    }

    public Account setBalance(double balance) {
      this.balance = balance;
      return this;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Account a
          && Objects.equals(owner, a.owner)
          && active == a.active
          && balance == a.balance;
    }

    @Override
    public int hashCode() {
      return Objects.hash(owner, active, balance);
    }
  }

  /** No constructor without arguments: Kryo, as in Flink. */
  public static class NoDefaultConstructor {
    public String name;

    public NoDefaultConstructor(String name) {
      this.name = name;
    }
  }

  /** A private field with a getter but no setter: Kryo, as in Flink. */
  public static class GetterOnly {
    private String name;
    public int count;

    public GetterOnly() {}

    public String getName() {
      return name;
    }
  }

  /** Not public: Kryo, as in Flink. */
  static class Hidden {
    public String name;
  }

  /** Contains itself: a POJO whose recursive field goes to Kryo. */
  public static class Chain {
    public String name;
    public Chain next;

    public Chain() {}

    @Override
    public boolean equals(Object o) {
      return o instanceof Chain c && Objects.equals(name, c.name) && Objects.equals(next, c.next);
    }

    @Override
    public int hashCode() {
      return Objects.hashCode(name);
    }
  }

  /** A generic superclass: the subclass binds its type variable. */
  public static class Envelope<T> {
    public T payload;
  }

  public static class StringEnvelope extends Envelope<String> {
    public StringEnvelope() {}
  }

  public record Line(String name, Order order) {}

  private static boolean isPojo(TypeInformation<?> type) {
    return type.createSerializer() instanceof PojoSerializer<?>;
  }

  @Test
  void aClassWithPublicFieldsIsAPojo() {
    TypeInformation<Order> type = TypeInformation.of(Order.class);
    assertThat(isPojo(type)).isTrue();
    assertThat(type.toString()).isEqualTo("Order");
    assertThat(type).isEqualTo(Types.POJO(Order.class));
    assertThat(type.createSerializer().toString())
        .isEqualTo(
            "Pojo<Order>(amount: long serializer, id: string serializer,"
                + " tags: List<string serializer>)");
    checkValue(type.createSerializer(), Order.of("a", 3));
  }

  @Test
  void aClassWithGettersAndSettersIsAPojo() {
    TypeInformation<Account> type = TypeInformation.of(Account.class);
    assertThat(isPojo(type)).isTrue();
    Account account = new Account();
    account.setOwner("ann");
    account.setActive(true);
    account.setBalance(2.5);
    checkValue(type.createSerializer(), account);
  }

  @Test
  void classesThatBreakTheRulesGoToKryo() {
    for (Class<?> c :
        List.of(NoDefaultConstructor.class, GetterOnly.class, Hidden.class, Object.class)) {
      TypeInformation<?> type = TypeInformation.of(c);
      assertThat(type.createSerializer()).as(c.getName()).isInstanceOf(KryoSerializer.class);
      assertThat(type.toString()).startsWith("GenericType<");
    }
    assertThat(PojoRules.whyNotPojo(NoDefaultConstructor.class))
        .isEqualTo("it has no constructor without arguments");
    assertThat(PojoRules.whyNotPojo(GetterOnly.class))
        .contains("field 'name' is neither public nor has a getter and a setter (setName)");
    assertThat(PojoRules.whyNotPojo(Hidden.class)).isEqualTo("it is not public");
    assertThat(PojoRules.whyNotPojo(Object.class)).isEqualTo("it has no fields");
    GetterOnly value = new GetterOnly();
    value.count = 2;
    GetterOnly back =
        deserialize(
            TypeInformation.of(GetterOnly.class).createSerializer(),
            serialize(TypeInformation.of(GetterOnly.class).createSerializer(), value));
    assertThat(back.count).isEqualTo(2);
  }

  @Test
  void pojosAreInferredInsideTuplesListsMapsAndRecords() {
    TypeInformation<Tuple2<String, Order>> tuple =
        new TypeHint<Tuple2<String, Order>>() {}.getTypeInfo();
    assertThat(tuple.createSerializer().toString()).contains("Pojo<Order>");
    checkValue(tuple.createSerializer(), Tuple2.of("k", Order.of("a", 1)));

    TypeInformation<Map<String, List<Account>>> map =
        new TypeHint<Map<String, List<Account>>>() {}.getTypeInfo();
    assertThat(map.createSerializer().toString()).contains("Pojo<Account>");
    Map<String, List<Account>> accounts = new HashMap<>();
    accounts.put("x", new ArrayList<>(List.of(new Account())));
    checkValue(map.createSerializer(), accounts);

    TypeInformation<Line> line = TypeInformation.of(Line.class);
    assertThat(line.createSerializer().toString()).contains("Pojo<Order>");
    checkValue(line.createSerializer(), new Line("l", Order.of("b", 2)));
  }

  @Test
  void pojosAreInferredFromFunctionSignatures() {
    MapFunction<String, Order> toOrder =
        new MapFunction<>() {
          @Override
          public Order map(String value) {
            return Order.of(value, 1);
          }
        };
    TypeInformation<Order> out = TypeExtractor.getOutputType(toOrder, MapFunction.class, 1, "Map");
    assertThat(out).isEqualTo(TypeInformation.of(Order.class));
    assertThat(isPojo(out)).isTrue();
  }

  @Test
  void subclassesAndNullKeepTheirValue() {
    TypeSerializer<Order> orders = TypeInformation.of(Order.class).createSerializer();
    PriorityOrder urgent = new PriorityOrder();
    urgent.id = "u";
    urgent.amount = 9;
    urgent.priority = 1;
    checkValue(orders, urgent);
    assertThat(orders.copy(urgent)).isInstanceOf(PriorityOrder.class).isEqualTo(urgent);
    checkValue(orders, null);
  }

  @Test
  void recursiveAndGenericPojos() {
    TypeInformation<Chain> chain = TypeInformation.of(Chain.class);
    assertThat(chain.createSerializer().toString())
        .contains("next: Kryo<" + Chain.class.getName() + ">");
    Chain head = new Chain();
    head.name = "a";
    head.next = new Chain();
    head.next.name = "b";
    checkValue(chain.createSerializer(), head);

    TypeSerializer<StringEnvelope> envelope =
        TypeInformation.of(StringEnvelope.class).createSerializer();
    assertThat(envelope.toString()).contains("payload: string serializer");
    StringEnvelope e = new StringEnvelope();
    e.payload = "p";
    assertThat(deserialize(envelope, serialize(envelope, e)).payload).isEqualTo("p");
  }
}
