package io.weir.api.state;

import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.TypeSerializer;

/** Describes a {@link ListState}; the type is that of the elements. */
public class ListStateDescriptor<T> extends StateDescriptor<T> {

  public ListStateDescriptor(String name, TypeInformation<T> elementType) {
    super(name, elementType);
  }

  public ListStateDescriptor(String name, Class<T> elementType) {
    super(name, TypeInformation.of(elementType));
  }

  public ListStateDescriptor(String name, TypeSerializer<T> elementSerializer) {
    super(name, elementSerializer);
  }

  @Override
  public Kind getKind() {
    return Kind.LIST;
  }
}
