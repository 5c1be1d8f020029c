package io.weir.runtime.testing.matrix;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ClassTemplateInvocationContext;
import org.junit.jupiter.api.extension.ClassTemplateInvocationContextProvider;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/** Provides one invocation of a {@link TestMatrix} class per selected {@link MatrixCell}. */
final class TestMatrixExtension implements ClassTemplateInvocationContextProvider {

  static final String SELECTION = "weir.test.matrix";
  static final String FULL = "weir.test.matrix.full";

  @Override
  public boolean supportsClassTemplate(ExtensionContext context) {
    return context.getRequiredTestClass().isAnnotationPresent(TestMatrix.class);
  }

  @Override
  public Stream<ClassTemplateInvocationContext> provideClassTemplateInvocationContexts(
      ExtensionContext context) {
    return cells(
            context.getRequiredTestClass(),
            System.getProperty(SELECTION, "heap"),
            Boolean.getBoolean(FULL))
        .stream()
        .map(Invocation::new);
  }

  /** A class may skip every cell a run selects (a local-only test on the mini cluster). */
  @Override
  public boolean mayReturnZeroClassTemplateInvocationContexts(ExtensionContext context) {
    return true;
  }

  /**
   * The cells {@code testClass} runs in: those {@code selection} selects, but for those it skips.
   */
  static List<MatrixCell> cells(Class<?> testClass, String selection, boolean full) {
    List<MatrixCell> skip = Arrays.asList(testClass.getAnnotation(TestMatrix.class).skip());
    return MatrixCell.select(selection, full).stream()
        .filter(cell -> !skip.contains(cell))
        .toList();
  }

  /** One cell's run of the class. */
  private record Invocation(MatrixCell cell) implements ClassTemplateInvocationContext {
    @Override
    public String getDisplayName(int invocationIndex) {
      return cell.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    @Override
    public List<Extension> getAdditionalExtensions() {
      return List.of(new RunsHere(cell, cell.whyNotHere()), new CellSettings(cell));
    }
  }

  /**
   * Skips the cell's run, saying where it runs, where its backend or deployment is not on the class
   * path: {@code -Dweir.test.matrix=ROCKSDB_INCREMENTAL_MINI_CLUSTER} given to {@code mvn -pl
   * weir-cluster -am} reaches weir-runtime's suites too.
   */
  private record RunsHere(MatrixCell cell, Optional<String> whyNot) implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      return whyNot
          .map(ConditionEvaluationResult::disabled)
          .orElseGet(() -> ConditionEvaluationResult.enabled(cell + " runs here"));
    }
  }

  /**
   * Sets the cell's system properties around the class's run and each of its tests (so that what a
   * {@code @BeforeAll} starts sees them too), then puts back what was there.
   */
  static final class CellSettings
      implements BeforeAllCallback,
          AfterAllCallback,
          BeforeEachCallback,
          AfterEachCallback,
          ParameterResolver {

    private final MatrixCell cell;
    private final Map<String, String> saved = new HashMap<>();
    private int depth;

    CellSettings(MatrixCell cell) {
      this.cell = cell;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
      apply();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
      apply();
    }

    @Override
    public void afterEach(ExtensionContext context) {
      restore();
    }

    @Override
    public void afterAll(ExtensionContext context) {
      restore();
    }

    private synchronized void apply() {
      if (depth++ > 0) {
        return;
      }
      cell.systemProperties()
          .forEach((key, value) -> saved.put(key, System.setProperty(key, value)));
    }

    private synchronized void restore() {
      if (--depth > 0) {
        return;
      }
      saved.forEach(
          (key, value) -> {
            if (value == null) {
              System.clearProperty(key);
            } else {
              System.setProperty(key, value);
            }
          });
      saved.clear();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
      return parameter.getParameter().getType() == MatrixCell.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
      return cell;
    }
  }
}
