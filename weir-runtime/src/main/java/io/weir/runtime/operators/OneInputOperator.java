package io.weir.runtime.operators;

/** An operator with one input. */
public interface OneInputOperator<IN> {

  void processElement(IN value, long timestamp) throws Exception;
}
