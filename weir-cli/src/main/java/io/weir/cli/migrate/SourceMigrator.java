package io.weir.cli.migrate;

import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.ImportDeclaration;
import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.MethodDeclaration;
import com.github.javaparser.ast.body.TypeDeclaration;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.FieldAccessExpr;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.NameExpr;
import com.github.javaparser.ast.stmt.ExpressionStmt;
import com.github.javaparser.ast.type.ClassOrInterfaceType;
import io.weir.cli.migrate.FlinkToWeirMap.Target;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Rewrites one Flink source file for Weir: its imports (single, wildcard and static), the fully
 * qualified Flink names in its code, the simple names of the classes Weir names differently and the
 * static calls Weir renamed; and lists, by line, what it cannot translate. It reads the syntax tree
 * and edits the original text ({@link TextEdits}), so the code it does not touch keeps its
 * formatting. One instance per source tree; not thread-safe.
 */
final class SourceMigrator {

  /** Something at a line of the original source: a thing to do by hand, or a note. */
  record Finding(int line, String message) {}

  /** The migrated text, how many rewrites it took, and what is left to do by hand. */
  record Result(String text, int changes, List<Finding> todo, List<Finding> notes) {}

  private final FlinkToWeirMap map;
  private final Set<String> localTypes;
  private final Set<String> localPackages;

  private int changes;
  private TextEdits edits;
  private List<Finding> todo;
  private List<Finding> notes;

  /**
   * @param localTypes the fully qualified names of the types the source tree declares (nested ones
   *     as {@code Outer.Inner}): a job in a package of Flink's, as Flink's own examples are, keeps
   *     its own imports
   */
  SourceMigrator(FlinkToWeirMap map, Set<String> localTypes) {
    this.map = map;
    this.localTypes = localTypes;
    this.localPackages = new HashSet<>();
    for (String type : localTypes) {
      for (int dot = type.lastIndexOf('.'); dot > 0; dot = type.lastIndexOf('.', dot - 1)) {
        localPackages.add(type.substring(0, dot));
      }
    }
  }

  Result migrate(CompilationUnit unit, String source) {
    changes = 0;
    edits = new TextEdits(source);
    todo = new ArrayList<>();
    notes = new ArrayList<>();
    Set<String> declared = declaredTypeNames(unit);
    Map<String, String> imported = importedFlinkClasses(unit, declared);

    renameStaticCalls(unit, imported);
    rewriteQualifiedTypes(unit);
    rewriteQualifiedExpressions(unit);
    renameSimpleNames(unit, imported);
    listNestedClassesWeirLacks(unit, imported);
    rewriteImports(unit, imported);
    checkCalls(unit);

    Comparator<Finding> byLine = Comparator.comparingInt(Finding::line);
    todo.sort(byLine);
    notes.sort(byLine);
    return new Result(edits.apply(), changes, todo, notes);
  }

  // ---------------------------------------------------------------- what the file refers to

  private static Set<String> declaredTypeNames(CompilationUnit unit) {
    Set<String> names = new HashSet<>();
    for (TypeDeclaration<?> type : unit.findAll(TypeDeclaration.class)) {
      names.add(type.getNameAsString());
    }
    return names;
  }

  /** Simple name to Flink class, for the Flink classes the file imports that it does not shadow. */
  private Map<String, String> importedFlinkClasses(CompilationUnit unit, Set<String> declared) {
    Set<String> used = usedSimpleNames(unit);
    Map<String, String> imported = new HashMap<>();
    for (ImportDeclaration decl : unit.getImports()) {
      String name = decl.getNameAsString();
      if (decl.isStatic() || !isFlink(name) || isLocal(name, decl.isAsterisk())) {
        continue;
      }
      if (decl.isAsterisk()) {
        map.classesOfPackage(name)
            .forEach(
                (simple, flink) -> {
                  if (used.contains(simple)) {
                    imported.putIfAbsent(simple, flink);
                  }
                });
      } else {
        imported.put(name.substring(name.lastIndexOf('.') + 1), name);
      }
    }
    imported.keySet().removeAll(declared);
    return imported;
  }

  /** The names that may be types: unqualified class types and names in expressions. */
  private static Set<String> usedSimpleNames(CompilationUnit unit) {
    Set<String> used = new HashSet<>();
    for (ClassOrInterfaceType type : unit.findAll(ClassOrInterfaceType.class)) {
      if (type.getScope().isEmpty()) {
        used.add(type.getNameAsString());
      }
    }
    for (NameExpr name : unit.findAll(NameExpr.class)) {
      used.add(name.getNameAsString());
    }
    return used;
  }

  // ---------------------------------------------------------------- rewrites

  /** {@code StreamExecutionEnvironment.getExecutionEnvironment()} to {@code ...create()}. */
  private void renameStaticCalls(CompilationUnit unit, Map<String, String> imported) {
    for (MethodCallExpr call : unit.findAll(MethodCallExpr.class)) {
      Optional<String> flinkClass = call.getScope().flatMap(s -> flinkClassOf(s, imported));
      if (flinkClass.isEmpty()) {
        continue;
      }
      String simple = flinkClass.get().substring(flinkClass.get().lastIndexOf('.') + 1);
      String renamed = map.staticCalls().get(simple + "." + call.getNameAsString());
      if (renamed == null) {
        continue;
      }
      if (renamed.startsWith("!")) {
        todo(call, simple + "." + call.getNameAsString() + ": " + renamed.substring(1).strip());
      } else {
        edits.replace(call.getName(), renamed);
        changes++;
      }
    }
  }

  /** The Flink class an expression names: an imported simple name or a qualified name. */
  private Optional<String> flinkClassOf(Expression scope, Map<String, String> imported) {
    if (scope instanceof NameExpr name) {
      return Optional.ofNullable(imported.get(name.getNameAsString()));
    }
    if (scope instanceof FieldAccessExpr field && map.classes().containsKey(field.toString())) {
      return Optional.of(field.toString());
    }
    return Optional.empty();
  }

  /** {@code org.apache.flink.api.java.tuple.Tuple2<A, B>} in declarations and casts. */
  private void rewriteQualifiedTypes(CompilationUnit unit) {
    for (ClassOrInterfaceType type : unit.findAll(ClassOrInterfaceType.class)) {
      if (type.getScope().isEmpty()
          || isScopeOfAnotherType(type)
          || !isFlink(type.getNameWithScope())) {
        continue;
      }
      // The Flink class is this type or, for a nested class, one of its scopes.
      ClassOrInterfaceType flink = type;
      while (flink != null && !isKnownClass(flink.getNameWithScope())) {
        flink = flink.getScope().orElse(null);
      }
      Optional<Target> target = map.lookup(type.getNameWithScope());
      if (flink == null || target.isEmpty() || !(target.get() instanceof Target.Mapped)) {
        target.ifPresent(t -> untranslatable(type, type.getNameWithScope(), t));
        continue;
      }
      Target.Mapped weir =
          (Target.Mapped)
              map.lookup(flink.getNameWithScope()).orElseThrow(IllegalStateException::new);
      edits.replace(flink, flink.getName(), weir.weirClass());
      changes++;
    }
  }

  private static boolean isScopeOfAnotherType(ClassOrInterfaceType type) {
    return type.getParentNode()
        .filter(
            p -> p instanceof ClassOrInterfaceType outer && outer.getScope().orElse(null) == type)
        .isPresent();
  }

  private boolean isKnownClass(String name) {
    return map.classes().containsKey(name) || map.untranslatable().containsKey(name);
  }

  /** {@code org.apache.flink....StreamExecutionEnvironment.getExecutionEnvironment()} in code. */
  private void rewriteQualifiedExpressions(CompilationUnit unit) {
    for (FieldAccessExpr field : unit.findAll(FieldAccessExpr.class)) {
      String name = field.toString();
      if (!isFlink(name) || isLocal(name, false)) {
        continue;
      }
      String weir = map.classes().get(name);
      if (weir != null) {
        edits.replace(field, weir);
        changes++;
      } else if (map.untranslatable().containsKey(name)) {
        todo(field, name + ": " + map.untranslatable().get(name));
      }
    }
  }

  /** {@code StreamExecutionEnvironment} to {@code StreamEnvironment} wherever the file says it. */
  private void renameSimpleNames(CompilationUnit unit, Map<String, String> imported) {
    Map<String, String> renames = new HashMap<>();
    imported.forEach(
        (simple, flink) ->
            map.lookup(flink)
                .filter(Target.Mapped.class::isInstance)
                .map(t -> ((Target.Mapped) t).simpleName())
                .filter(weir -> !weir.equals(simple))
                .ifPresent(weir -> renames.put(simple, weir)));
    if (renames.isEmpty()) {
      return;
    }
    for (ClassOrInterfaceType type : unit.findAll(ClassOrInterfaceType.class)) {
      String weir = renames.get(type.getNameAsString());
      if (weir != null && type.getScope().isEmpty()) {
        edits.replace(type.getName(), weir);
        changes++;
      }
    }
    for (NameExpr name : unit.findAll(NameExpr.class)) {
      String weir = renames.get(name.getNameAsString());
      if (weir != null) {
        edits.replace(name, weir);
        changes++;
      }
    }
  }

  /**
   * {@code TimestampAssignerSupplier.Context}, named through its imported outer class: listed when
   * the map says Weir's outer class has no such nested class (the outer class is renamed as usual).
   */
  private void listNestedClassesWeirLacks(CompilationUnit unit, Map<String, String> imported) {
    for (ClassOrInterfaceType type : unit.findAll(ClassOrInterfaceType.class)) {
      ClassOrInterfaceType outer = type.getScope().orElse(null);
      String flinkOuter = outer == null ? null : imported.get(outer.getNameAsString());
      if (flinkOuter == null || outer.getScope().isPresent()) {
        continue;
      }
      String nested = flinkOuter + "." + type.getNameAsString();
      String advice = map.untranslatable().get(nested);
      if (advice != null) {
        todo(type, nested + ": " + advice);
      }
    }
  }

  private void rewriteImports(CompilationUnit unit, Map<String, String> imported) {
    for (ImportDeclaration decl : List.copyOf(unit.getImports())) {
      String name = decl.getNameAsString();
      if (!isFlink(name)) {
        continue;
      }
      if (decl.isStatic()) {
        rewriteStaticImport(decl, name);
      } else if (decl.isAsterisk()) {
        if (!isLocal(name, true)) {
          rewriteWildcardImport(decl, name, imported);
        }
      } else if (!isLocal(name, false)) {
        Optional<Target> target = map.lookup(name);
        if (target.isPresent() && target.get() instanceof Target.Mapped weir) {
          edits.replace(decl.getName(), weir.weirClass());
          changes++;
        } else {
          target.ifPresent(t -> untranslatable(decl, name, t));
        }
      }
    }
  }

  private void rewriteStaticImport(ImportDeclaration decl, String name) {
    String flinkClass = decl.isAsterisk() ? name : name.substring(0, name.lastIndexOf('.'));
    if (isLocal(flinkClass, false)) {
      return;
    }
    Optional<Target> target = map.lookup(flinkClass);
    if (target.isPresent() && target.get() instanceof Target.Mapped weir) {
      edits.replace(
          decl.getName(),
          decl.isAsterisk()
              ? weir.weirClass()
              : weir.weirClass() + name.substring(flinkClass.length()));
      changes++;
    } else {
      target.ifPresent(t -> untranslatable(decl, flinkClass, t));
    }
  }

  /**
   * {@code import org.apache.flink.api.java.tuple.*}: a wildcard import of each Weir package that
   * holds a class the file uses from that Flink package.
   */
  private void rewriteWildcardImport(
      ImportDeclaration decl, String flinkPackage, Map<String, String> imported) {
    Set<String> weirPackages = new TreeSet<>();
    Set<String> unmapped = new TreeSet<>();
    imported.forEach(
        (simple, flink) -> {
          if (flink.startsWith(flinkPackage + ".")
              && flink.lastIndexOf('.') == flinkPackage.length()) {
            Optional<Target> target = map.lookup(flink);
            if (target.isPresent() && target.get() instanceof Target.Mapped weir) {
              weirPackages.add(weir.packageName());
            } else {
              unmapped.add(simple);
            }
          }
        });
    for (String simple : unmapped) {
      untranslatable(
          decl, flinkPackage + "." + simple, map.lookup(flinkPackage + "." + simple).get());
    }
    if (weirPackages.isEmpty()) {
      if (unmapped.isEmpty()) {
        untranslatable(decl, flinkPackage + ".*", map.lookup(flinkPackage + ".*").orElseThrow());
      }
      return;
    }
    List<String> packages = new ArrayList<>(weirPackages);
    edits.replace(decl.getName(), packages.get(0));
    changes++;
    for (String weirPackage : packages.subList(1, packages.size())) {
      edits.insertAfter(decl, "\nimport " + weirPackage + ".*;");
      changes++;
    }
  }

  /** Lists the Flink calls Weir lacks; removes those that mean nothing on Weir. */
  private void checkCalls(CompilationUnit unit) {
    Set<String> ownMethods = new HashSet<>();
    for (MethodDeclaration method : unit.findAll(MethodDeclaration.class)) {
      ownMethods.add(method.getNameAsString());
    }
    for (MethodCallExpr call : unit.findAll(MethodCallExpr.class)) {
      String name = call.getNameAsString();
      if (call.getScope().isEmpty() || ownMethods.contains(name)) {
        continue;
      }
      String missing = map.missingCalls().get(name);
      if (missing != null) {
        todo(call, "." + name + "(...): " + missing);
        continue;
      }
      String dropped = map.droppedCalls().get(name);
      if (dropped != null) {
        note(call, "removed ." + name + "(): " + dropped);
        if (call.getParentNode().orElse(null) instanceof ExpressionStmt statement) {
          edits.removeWithLine(statement);
        } else {
          edits.removeAfter(call.getScope().get(), call);
        }
        changes++;
      }
    }
  }

  // ---------------------------------------------------------------- helpers

  private static boolean isFlink(String name) {
    return name.startsWith(FlinkToWeirMap.FLINK_PREFIX);
  }

  /** Whether {@code name} is a type (or with {@code wildcard} a package) of the source tree. */
  private boolean isLocal(String name, boolean wildcard) {
    if (wildcard) {
      return localPackages.contains(name) || localTypes.contains(name);
    }
    for (String n = name; n.contains("."); n = n.substring(0, n.lastIndexOf('.'))) {
      if (localTypes.contains(n)) {
        return true;
      }
    }
    return false;
  }

  private void untranslatable(Node node, String flinkName, Target target) {
    if (target instanceof Target.Untranslatable none) {
      todo(node, flinkName + ": " + none.advice());
    }
  }

  private void todo(Node node, String message) {
    todo.add(new Finding(line(node), message));
  }

  private void note(Node node, String message) {
    notes.add(new Finding(line(node), message));
  }

  private static int line(Node node) {
    return node.getBegin().map(p -> p.line).orElse(0);
  }
}
