package io.weir.api.typeutils;

/**
 * Base of the built-in serializers that have no configuration: one shared instance each (they keep
 * no scratch state, so {@link #duplicate()} is {@code this}), identified in snapshots by a stable
 * name through {@link BasicSerializerSnapshot}.
 */
abstract class StatelessSerializer<T> extends TypeSerializer<T> {

  private final String name;

  StatelessSerializer(String name) {
    this.name = name;
  }

  /** The name written into snapshots; never change it once released. */
  final String name() {
    return name;
  }

  @Override
  public final TypeSerializer<T> duplicate() {
    return this;
  }

  @Override
  public final TypeSerializerSnapshot<T> snapshotConfiguration() {
    return new BasicSerializerSnapshot<>(this);
  }

  @Override
  @SuppressWarnings("EqualsGetClass") // one instance per class: equal means same class
  public final boolean equals(Object obj) {
    return obj != null && obj.getClass() == getClass();
  }

  @Override
  public final int hashCode() {
    return name.hashCode();
  }

  @Override
  public String toString() {
    return name + " serializer";
  }
}
