package io.junction.boundary;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.junction.api.JoinSpec;
import io.junction.internal.state.RowStore;
import io.junction.internal.time.TimerWheel;

/**
 * Holds the line between the public API and the internals: no public or protected member of a public
 * class outside {@code io.junction.internal} may name an internal type, so a user can never reach
 * state layouts, the key index, the arena, the wheel, compiled predicates or counters' fields.
 */
final class ApiBoundaryTest
{
    private static final String INTERNAL = "io.junction.internal.";

    @Test
    void noExportedSignatureExposesAnInternalType() throws Exception
    {
        final List<Class<?>> exported = exportedClasses();
        assertTrue(exported.size() > 20, "found the engine's public classes: " + exported);
        final TreeSet<String> violations = new TreeSet<>();
        for (final Class<?> type : exported)
        {
            check(type.getGenericSuperclass(), type.getName() + " extends", violations);
            for (final Type iface : type.getGenericInterfaces())
            {
                check(iface, type.getName() + " implements", violations);
            }
            for (final Field field : type.getDeclaredFields())
            {
                if (visible(field.getModifiers()))
                {
                    check(field.getGenericType(), type.getName() + "." + field.getName(), violations);
                }
            }
            // getMethods() adds what a public class inherits from a package-private base
            final List<Method> methods = new ArrayList<>(List.of(type.getDeclaredMethods()));
            methods.addAll(List.of(type.getMethods()));
            for (final Method method : methods)
            {
                if (visible(method.getModifiers()) && !method.isSynthetic() && !method.isBridge())
                {
                    check(method.getGenericReturnType(), type.getName() + "." + method.getName() + " returns", violations);
                    checkExecutable(method, type.getName() + "." + method.getName(), violations);
                }
            }
            for (final Constructor<?> constructor : type.getDeclaredConstructors())
            {
                if (visible(constructor.getModifiers()))
                {
                    checkExecutable(constructor, type.getName() + ".<init>", violations);
                }
            }
        }
        assertEquals(new TreeSet<String>(), violations, "public API signatures that expose internal types");
    }

    @Test
    void exportedClassesHaveNoMutablePublicFields() throws Exception
    {
        final TreeSet<String> violations = new TreeSet<>();
        for (final Class<?> type : exportedClasses())
        {
            for (final Field field : type.getDeclaredFields())
            {
                final int modifiers = field.getModifiers();
                if (visible(modifiers) && !Modifier.isFinal(modifiers))
                {
                    violations.add(type.getName() + "." + field.getName());
                }
            }
        }
        assertEquals(new TreeSet<String>(), violations, "public fields that anyone could write");
    }

    @Test
    void theCheckSeesAnInternalTypeWhereverItHides()
    {
        final TreeSet<String> violations = new TreeSet<>();
        check(Leaky.class.getGenericSuperclass(), "superclass", violations);
        for (final Method method : Leaky.class.getDeclaredMethods())
        {
            check(method.getGenericReturnType(), method.getName(), violations);
        }
        assertEquals(2, violations.size(), violations.toString());
    }

    /** A deliberate violation, to prove the check finds types inside generics and arrays. */
    abstract static class Leaky extends ArrayList<RowStore>
    {
        abstract List<TimerWheel[]> wheels();

        abstract String fine();
    }

    private static void checkExecutable(final Executable executable, final String where, final TreeSet<String> violations)
    {
        for (final Type parameter : executable.getGenericParameterTypes())
        {
            check(parameter, where + " takes", violations);
        }
        for (final Type thrown : executable.getGenericExceptionTypes())
        {
            check(thrown, where + " throws", violations);
        }
    }

    private static boolean visible(final int modifiers)
    {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static void check(final Type type, final String where, final TreeSet<String> violations)
    {
        if (type == null)
        {
            return;
        }
        if (type instanceof Class)
        {
            Class<?> raw = (Class<?>)type;
            while (raw.isArray())
            {
                raw = raw.getComponentType();
            }
            if (raw.getName().startsWith(INTERNAL))
            {
                violations.add(where + " " + raw.getName());
            }
        }
        else if (type instanceof ParameterizedType)
        {
            final ParameterizedType parameterized = (ParameterizedType)type;
            check(parameterized.getRawType(), where, violations);
            for (final Type argument : parameterized.getActualTypeArguments())
            {
                check(argument, where, violations);
            }
        }
        else if (type instanceof GenericArrayType)
        {
            check(((GenericArrayType)type).getGenericComponentType(), where, violations);
        }
        else if (type instanceof WildcardType)
        {
            for (final Type bound : ((WildcardType)type).getUpperBounds())
            {
                check(bound, where, violations);
            }
            for (final Type bound : ((WildcardType)type).getLowerBounds())
            {
                check(bound, where, violations);
            }
        }
        else if (type instanceof TypeVariable)
        {
            // bounds only one level deep: a bound may name the variable itself (E extends Enum<E>)
            for (final Type bound : ((TypeVariable<?>)type).getBounds())
            {
                check(bound instanceof ParameterizedType ? ((ParameterizedType)bound).getRawType() : bound, where, violations);
            }
        }
    }

    /** @return every public class (and public member class of one) of the engine outside the internal packages. */
    private static List<Class<?>> exportedClasses() throws IOException, URISyntaxException, ClassNotFoundException
    {
        final Path root = Paths.get(JoinSpec.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        final List<Class<?>> exported = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root))
        {
            for (final Path file : (Iterable<Path>)files::iterator)
            {
                final String relative = root.relativize(file).toString().replace('\\', '/');
                if (!relative.endsWith(".class") || relative.endsWith("package-info.class"))
                {
                    continue;
                }
                final String name = relative.substring(0, relative.length() - ".class".length()).replace('/', '.');
                if (name.startsWith(INTERNAL) || !name.startsWith("io.junction."))
                {
                    continue;
                }
                final Class<?> type = Class.forName(name, false, ApiBoundaryTest.class.getClassLoader());
                if (isExported(type))
                {
                    exported.add(type);
                }
            }
        }
        return exported;
    }

    private static boolean isExported(final Class<?> type)
    {
        for (Class<?> t = type; t != null; t = t.getDeclaringClass())
        {
            if (!Modifier.isPublic(t.getModifiers()) || t.isAnonymousClass() || t.isLocalClass() || t.isSynthetic())
            {
                return false;
            }
        }
        return true;
    }
}
