package io.weir.runtime.operators;

/** An operator with two inputs of possibly different types. */
public interface TwoInputOperator<I1, I2> {

  void processElement1(I1 value, long timestamp) throws Exception;

  void processElement2(I2 value, long timestamp) throws Exception;
}
