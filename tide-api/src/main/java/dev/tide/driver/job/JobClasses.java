package dev.tide.driver.job;

/**
 * Resolves the class names a plan carries (jobs, mappers, reducers, partitioners) to new
 * instances, through the thread's context class loader (the application's user jars), with an
 * error naming the role and what is wrong. The built-in jobs' short names are the driver's
 * ({@code dev.tide.driver.jobs.BuiltInJobs}).
 */
public final class JobClasses {
  private JobClasses() {}

  public static <T> T newInstance(String className, Class<T> type, String role) {
    Class<?> cls;
    try {
      cls = Class.forName(className, true, Thread.currentThread().getContextClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException(role + " class " + className
          + " not found on the classpath", e);
    }
    if (!type.isAssignableFrom(cls)) {
      throw new IllegalArgumentException(role + " class " + className + " does not implement "
          + type.getName());
    }
    try {
      return type.cast(cls.getDeclaredConstructor().newInstance());
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(role + " class " + className
          + " needs a public no-arg constructor", e);
    }
  }
}
