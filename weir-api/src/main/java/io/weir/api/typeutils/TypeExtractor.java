package io.weir.api.typeutils;

import java.lang.invoke.MethodHandleInfo;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Finds the type information of a user function's input or output from its signature, the way
 * Flink's {@code TypeExtractor} does.
 *
 * <p>For a class (named or anonymous) the type comes from its generic supertypes, which Java keeps.
 * For a lambda or method reference it comes from the implementation method, which Java keeps only
 * as raw classes: a lambda returning {@code Long} is fine, one returning {@code Tuple2<String,
 * Long>} or emitting into a {@code Collector<OUT>} is not. Then the result is {@link
 * TypeInformation#missing missing} with a message saying what to do; extraction never throws.
 */
public final class TypeExtractor {

  private static final String ADVICE =
      "Add .returns(Types.STRING) or .returns(new TypeHint<Tuple2<String, Long>>(){}) after the"
          + " call, or implement the function as a (anonymous) class";

  private TypeExtractor() {}

  /** The type information of {@code type}, as Flink's {@code TypeExtractor.createTypeInfo}. */
  public static <T> TypeInformation<T> createTypeInfo(Class<T> type) {
    return TypeInformation.of(type);
  }

  /**
   * The type information of type argument number {@code typeArgIndex} of {@code functionBase} (a
   * generic interface or abstract class) as implemented by {@code function}, for example the {@code
   * OUT} of a {@code MapFunction<IN, OUT>}.
   *
   * @param operatorName names the operator in the message of a missing type
   * @return the type, or {@link TypeInformation#missing} with the reason when it cannot be found
   */
  @SuppressWarnings("unchecked")
  public static <OUT> TypeInformation<OUT> getOutputType(
      Object function, Class<?> functionBase, int typeArgIndex, String operatorName) {
    Request request = new Request(function, functionBase, typeArgIndex, operatorName);
    try {
      return (TypeInformation<OUT>) request.extract();
    } catch (RuntimeException | LinkageError e) {
      return (TypeInformation<OUT>) request.missing("inspecting it failed with " + e);
    }
  }

  /** One extraction: what is asked for, and how to describe the function in messages. */
  private static final class Request {
    private final Object function;
    private final Class<?> functionBase;
    private final int typeArgIndex;
    private final String operatorName;
    private String functionDescription;

    Request(Object function, Class<?> functionBase, int typeArgIndex, String operatorName) {
      this.function = function;
      this.functionBase = functionBase;
      this.typeArgIndex = typeArgIndex;
      this.operatorName = operatorName;
      this.functionDescription = function == null ? "null" : function.getClass().getName();
    }

    TypeInformation<?> extract() {
      if (function == null) {
        return missing("the function is null");
      }
      TypeVariable<?>[] parameters = functionBase.getTypeParameters();
      if (typeArgIndex < 0 || typeArgIndex >= parameters.length) {
        return missing(
            functionBase.getName()
                + " has no type parameter number "
                + typeArgIndex
                + " (it has "
                + parameters.length
                + ")");
      }
      Class<?> functionClass = function.getClass();
      Type implemented = GenericTypes.resolveSupertype(functionClass, functionBase);
      if (implemented == null) {
        return missing(functionClass.getName() + " does not implement " + functionBase.getName());
      }
      boolean lambda = isLambda(functionClass);
      if (implemented instanceof ParameterizedType parameterized) {
        // Also for a lambda of a sub-interface that fixes the types, like
        // interface Tokenizer extends FlatMapFunction<String, String>.
        Type argument = parameterized.getActualTypeArguments()[typeArgIndex];
        TypeVariable<?> free = GenericTypes.findTypeVariable(argument);
        if (free == null) {
          return of(argument, lambda);
        } else if (!lambda) {
          return missing(
              "its type argument "
                  + parameters[typeArgIndex].getName()
                  + " is "
                  + argument.getTypeName()
                  + ", and Java erases the type variable "
                  + free.getName()
                  + " of "
                  + declarationName(free)
                  + " at runtime");
        }
      } else if (!lambda) {
        return missing(
            "it implements the raw type "
                + functionBase.getSimpleName()
                + " without type arguments");
      }
      return fromLambda(functionClass, parameters[typeArgIndex]);
    }

    private TypeInformation<?> fromLambda(Class<?> functionClass, TypeVariable<?> variable) {
      SerializedLambda lambda = serializedLambda(functionClass);
      if (lambda == null) {
        return missing(
            "it is a lambda whose interface does not extend java.io.Serializable, so its"
                + " signature cannot be read");
      }
      ClassLoader loader = loaderOf(functionClass);
      String implClassName = lambda.getImplClass().replace('/', '.');
      String implMethodName = lambda.getImplMethodName();
      boolean isConstructor = lambda.getImplMethodKind() == MethodHandleInfo.REF_newInvokeSpecial;
      functionDescription =
          implMethodName.startsWith("lambda$")
              ? "a lambda in " + implClassName + "." + implMethodName
              : "the method reference "
                  + implClassName
                  + "::"
                  + (isConstructor ? "new" : implMethodName);

      Method sam = singleAbstractMethod(functionBase);
      if (sam == null) {
        return missing(functionBase.getName() + " does not have exactly one abstract method");
      }
      Map<TypeVariable<?>, Type> toBase = samBindings(sam);
      Type samReturn = GenericTypes.substitute(sam.getGenericReturnType(), toBase);
      Type[] samParameters = sam.getGenericParameterTypes();
      for (int k = 0; k < samParameters.length; k++) {
        samParameters[k] = GenericTypes.substitute(samParameters[k], toBase);
      }

      Class<?> implClass = load(implClassName, loader);
      Executable impl =
          findImplementation(implClass, implMethodName, lambda.getImplMethodSignature());
      Type found;
      if (samReturn.equals(variable)) {
        found = returnType(lambda, implClass, impl, loader);
      } else {
        int position = indexOf(samParameters, variable);
        if (position >= 0) {
          found = parameterType(lambda, position, samParameters.length, impl, loader);
        } else {
          Type nested = samReturn;
          for (Type parameter : samParameters) {
            if (GenericTypes.mentions(parameter, variable)) {
              nested = parameter;
            }
          }
          if (GenericTypes.mentions(nested, variable)) {
            return missing(
                "Java erases the generic types of lambda parameters such as "
                    + GenericTypes.simpleName(nested));
          }
          return missing(
              sam.getName()
                  + " of "
                  + functionBase.getSimpleName()
                  + " does not use "
                  + variable.getName());
        }
      }
      if (found == Object.class) {
        return missing(
            "its signature only says Object, which tells nothing about the values (Java erased"
                + " the generic type)");
      }
      return of(found, true);
    }

    /** The type a lambda returns, with generics when it is a method reference that keeps them. */
    private Type returnType(
        SerializedLambda lambda, Class<?> implClass, Executable impl, ClassLoader loader) {
      if (lambda.getImplMethodKind() == MethodHandleInfo.REF_newInvokeSpecial) {
        return implClass;
      }
      if (impl instanceof Method method) {
        Type generic = method.getGenericReturnType();
        return GenericTypes.findTypeVariable(generic) == null
            ? boxed(generic)
            : GenericTypes.box(method.getReturnType());
      }
      String signature = lambda.getImplMethodSignature();
      return GenericTypes.box(Descriptors.returnType(signature, loader));
    }

    /**
     * The type of SAM parameter {@code position}: the implementation's generic parameter type if it
     * lines up and keeps more than the erased type, otherwise the instantiated (erased) type, which
     * always lines up and already accounts for captured arguments and receivers.
     */
    private Type parameterType(
        SerializedLambda lambda, int position, int samArity, Executable impl, ClassLoader loader) {
      Class<?> erased =
          GenericTypes.box(
              Descriptors.parameterTypes(lambda.getInstantiatedMethodType(), loader)[position]);
      if (impl == null || impl.isVarArgs()) {
        return erased;
      }
      int captured = lambda.getCapturedArgCount();
      int kind = lambda.getImplMethodKind();
      boolean isStatic =
          kind == MethodHandleInfo.REF_invokeStatic
              || kind == MethodHandleInfo.REF_newInvokeSpecial;
      int index;
      int expectedCount;
      if (isStatic) {
        index = captured + position;
        expectedCount = captured + samArity;
      } else if (captured > 0) {
        // The receiver was captured (this, or a bound method reference like text::indexOf).
        index = captured - 1 + position;
        expectedCount = captured - 1 + samArity;
      } else {
        // Unbound method reference (String::length): SAM parameter 0 is the receiver.
        index = position - 1;
        expectedCount = samArity - 1;
      }
      Type[] generic = impl.getGenericParameterTypes();
      if (index < 0
          || generic.length != impl.getParameterCount()
          || generic.length != expectedCount) {
        return erased;
      }
      Type candidate = generic[index];
      if (GenericTypes.findTypeVariable(candidate) == null
          && erased.isAssignableFrom(GenericTypes.box(GenericTypes.rawClass(candidate)))) {
        return boxed(candidate);
      }
      return erased;
    }

    private TypeInformation<?> of(Type type, boolean fromLambda) {
      if (fromLambda) {
        Class<?> rawGeneric = GenericTypes.findRawGenericClass(type);
        if (rawGeneric != null) {
          return missing(
              "Java erases the generic types of lambdas: it is known to produce "
                  + GenericTypes.simpleName(type)
                  + ", but not the type arguments of "
                  + rawGeneric.getSimpleName());
        }
      }
      try {
        return TypeInformation.of(type);
      } catch (InvalidTypesException e) {
        return missing(e.getMessage());
      }
    }

    TypeInformation<?> missing(String why) {
      String variable =
          typeArgIndex >= 0 && typeArgIndex < functionBase.getTypeParameters().length
              ? functionBase.getTypeParameters()[typeArgIndex].getName()
              : "#" + typeArgIndex;
      return TypeInformation.missing(
          new InvalidTypesException(
              "Could not determine the type "
                  + variable
                  + " of "
                  + functionBase.getSimpleName()
                  + " in operator '"
                  + operatorName
                  + "' ("
                  + functionDescription
                  + "): "
                  + why
                  + ". "
                  + ADVICE
                  + "."));
    }

    private SerializedLambda serializedLambda(Class<?> functionClass) {
      try {
        Method writeReplace = functionClass.getDeclaredMethod("writeReplace");
        writeReplace.setAccessible(true);
        Object replacement = writeReplace.invoke(function);
        return replacement instanceof SerializedLambda lambda ? lambda : null;
      } catch (NoSuchMethodException e) {
        return null;
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("reading the lambda's SerializedLambda failed", e);
      }
    }

    /** Bindings from the SAM's declaring interface's variables to {@code functionBase}'s own. */
    private Map<TypeVariable<?>, Type> samBindings(Method sam) {
      Class<?> declaring = sam.getDeclaringClass();
      if (declaring == functionBase || functionBase.getTypeParameters().length == 0) {
        return Map.of();
      }
      Type self = GenericTypes.parameterized(functionBase, functionBase.getTypeParameters());
      Type declaringType = GenericTypes.resolveSupertype(self, declaring);
      return declaringType == null ? Map.of() : GenericTypes.bindingsOf(declaringType);
    }
  }

  private static boolean isLambda(Class<?> c) {
    return c.isSynthetic() && c.getName().contains("$$Lambda");
  }

  private static String declarationName(TypeVariable<?> variable) {
    return variable.getGenericDeclaration() instanceof Class<?> c
        ? c.getName()
        : variable.getGenericDeclaration().toString();
  }

  private static Type boxed(Type type) {
    return type instanceof Class<?> c ? GenericTypes.box(c) : type;
  }

  private static int indexOf(Type[] types, Type wanted) {
    for (int i = 0; i < types.length; i++) {
      if (types[i].equals(wanted)) {
        return i;
      }
    }
    return -1;
  }

  private static ClassLoader loaderOf(Class<?> c) {
    ClassLoader loader = c.getClassLoader();
    if (loader == null) {
      loader = Thread.currentThread().getContextClassLoader();
    }
    return loader != null ? loader : ClassLoader.getSystemClassLoader();
  }

  private static Class<?> load(String name, ClassLoader loader) {
    try {
      return Class.forName(name, false, loader);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("cannot load " + name, e);
    }
  }

  /** The one abstract method of an interface, ignoring those of Object; null if not exactly one. */
  static Method singleAbstractMethod(Class<?> base) {
    List<Method> abstractMethods = new ArrayList<>();
    for (Method m : base.getMethods()) {
      if (Modifier.isAbstract(m.getModifiers()) && !isObjectMethod(m)) {
        abstractMethods.add(m);
      }
    }
    Method sam = null;
    for (Method m : abstractMethods) {
      if (sam == null) {
        sam = m;
      } else if (!sam.getName().equals(m.getName())
          || sam.getParameterCount() != m.getParameterCount()) {
        return null;
      } else if (sam.getDeclaringClass().isAssignableFrom(m.getDeclaringClass())) {
        sam = m; // the more specific redeclaration
      }
    }
    return sam;
  }

  private static boolean isObjectMethod(Method m) {
    try {
      Object.class.getMethod(m.getName(), m.getParameterTypes());
      return true;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  /** The method or constructor with this name and descriptor in {@code c} or its supertypes. */
  private static Executable findImplementation(Class<?> c, String name, String descriptor) {
    if ("<init>".equals(name)) {
      for (Constructor<?> constructor : c.getDeclaredConstructors()) {
        if (Descriptors.of(constructor).equals(descriptor)) {
          return constructor;
        }
      }
      return null;
    }
    for (Class<?> k = c; k != null; k = k.getSuperclass()) {
      Executable found = declaredMethod(k, name, descriptor);
      if (found != null) {
        return found;
      }
    }
    for (Class<?> iface : c.getInterfaces()) {
      Executable found = findImplementation(iface, name, descriptor);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  private static Executable declaredMethod(Class<?> c, String name, String descriptor) {
    for (Method m : c.getDeclaredMethods()) {
      if (m.getName().equals(name) && Descriptors.of(m).equals(descriptor)) {
        return m;
      }
    }
    return null;
  }
}
