package io.weir.api.graph;

import io.weir.api.functions.KeySelector;
import io.weir.api.typeutils.TypeInformation;

/**
 * How an operator on a keyed stream finds the key of an element.
 *
 * @param selector extracts the key
 * @param keyType the key's type, for serializing it in state
 */
public record KeyContext<T, K>(KeySelector<T, K> selector, TypeInformation<K> keyType) {}
