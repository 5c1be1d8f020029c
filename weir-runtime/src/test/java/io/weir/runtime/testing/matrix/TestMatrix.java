package io.weir.runtime.testing.matrix;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.ClassTemplate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class once per cell of the declared {@link MatrixCell matrix} that the run selects:
 * the property {@code weir.test.matrix} names the backends, deployments or cells (default {@code
 * heap}; the RocksDB module runs the runtime's matrix suites with {@code rocksdb}, weir-cluster
 * with {@code mini-cluster}), and {@code -Dweir.test.matrix.full=true} adds the cells that do not
 * run by default (unaligned checkpoints; RocksDB on the mini cluster). Each test of the class runs
 * with its cell's settings as system properties, which every {@code StreamEnvironment}, the
 * operator harness and the {@link Deployment}'s executor read; a test may take the {@link
 * MatrixCell} as a parameter.
 *
 * <p>Tagged {@code matrix}, so that another module can run exactly the suites that opted in.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@ClassTemplate
@ExtendWith(TestMatrixExtension.class)
@Tag("matrix")
public @interface TestMatrix {

  /**
   * Cells this class never runs in: where a cell adds only time, not coverage, or where its
   * deployment cannot run the test (say why in a comment).
   */
  MatrixCell[] skip() default {};
}
