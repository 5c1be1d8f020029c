/**
 * Test support for operators, usable from any module's tests: {@link
 * io.weir.runtime.testing.OperatorHarness} drives an operator (or a user function through its
 * operator) step by step and checks that snapshot + restore into a fresh instance, injected at
 * every point of the script, and crash + replay from a checkpoint never change the output. {@link
 * io.weir.runtime.testing.ManualProcessingTimeService} is a clock a test moves by hand.
 *
 * <p>Everything here runs on the calling thread, which plays the task thread.
 */
package io.weir.runtime.testing;
