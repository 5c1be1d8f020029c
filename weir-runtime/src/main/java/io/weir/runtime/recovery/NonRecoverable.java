package io.weir.runtime.recovery;

/**
 * Marks an exception that will happen again on every attempt from the same inputs: an incompatible
 * state format, an invalid setting, a directory that cannot be written, a state above a storage
 * limit. A job whose attempt fails with one in its causes fails at once instead of restarting, as
 * Flink's {@code SuppressRestartsException} and non-recoverable errors do: a restart would only
 * repeat the failure, forever under an unlimited restart strategy.
 *
 * <p>A checkpoint that cannot be restored is not such a failure: the job falls back to an older
 * retained checkpoint (see {@link io.weir.runtime.checkpoint.CorruptCheckpointException}).
 */
public interface NonRecoverable {}
