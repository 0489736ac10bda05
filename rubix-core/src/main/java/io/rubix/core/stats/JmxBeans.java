package io.rubix.core.stats;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Registers and unregisters RubiX's JMX beans on the platform MBean server; a failure is logged, never thrown. */
public final class JmxBeans {
  private static final Logger LOG = LoggerFactory.getLogger(JmxBeans.class);

  private JmxBeans() {}

  /** Registers {@code bean} under {@code name}; null when that fails (logged as the bean of {@code what}). */
  public static ObjectName register(Object bean, String name, String what) {
    try {
      ObjectName objectName = new ObjectName(name);
      ManagementFactory.getPlatformMBeanServer().registerMBean(bean, objectName);
      return objectName;
    } catch (JMException e) {
      LOG.warn("Could not register the JMX bean of {}", what, e);
      return null;
    }
  }

  /** Unregisters each of {@code names} that is not null. */
  public static void unregister(ObjectName... names) {
    for (ObjectName name : names) {
      if (name == null) {
        continue;
      }
      try {
        ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
      } catch (JMException e) {
        LOG.debug("Unregistering {} failed", name, e);
      }
    }
  }

  /** A key property that tells apart the beans of {@code owner} from those of other instances in this JVM. */
  public static String idOf(Object owner) {
    return Integer.toHexString(System.identityHashCode(owner));
  }
}
