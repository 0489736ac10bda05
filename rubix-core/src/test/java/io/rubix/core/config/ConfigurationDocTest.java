package io.rubix.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.spi.config.RubixKeys;
import io.rubix.spi.config.ConfigKey;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Keeps docs/configuration.md and the keys in code in step. */
class ConfigurationDocTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern ROW = Pattern.compile("^\\| `(rubix\\.[^`]+)` \\| (?:`([^`]*)`|\\(none\\)) \\|");
  private static final Pattern LITERAL = Pattern.compile("\"(rubix\\.[a-z0-9.<>-]+)\"");

  @Test
  void everyDeclaredKeyIsDocumentedWithItsDefault() throws IOException {
    Map<String, String> documented = documentedKeys();
    for (ConfigKey key : RubixKeys.all()) {
      assertThat(documented).as("docs/configuration.md row for %s", key.name()).containsKey(key.name());
      assertThat(documented.get(key.name())).as("documented default of %s", key.name()).isEqualTo(key.defaultValue());
    }
    Set<String> declared = new HashSet<>();
    RubixKeys.all().forEach(k -> declared.add(k.name()));
    assertThat(declared).as("keys documented but not in code").containsAll(documented.keySet());
  }

  @Test
  void everyConstantIsListedInAll() throws IllegalAccessException {
    for (Class<?> keys : RubixKeys.keyClasses()) {
      for (Field field : keys.getFields()) {
        if (Modifier.isStatic(field.getModifiers()) && field.getType() == ConfigKey.class) {
          assertThat(RubixKeys.all()).as("RubixKeys.all() lists %s.%s", keys.getSimpleName(), field.getName()).contains((ConfigKey) field.get(null));
        }
      }
    }
  }

  @Test
  void everyRubixKeyLiteralInMainCodeIsDocumented() throws IOException {
    Map<String, String> documented = documentedKeys();
    try (Stream<Path> files = Files.walk(ROOT)) {
      // product modules only (rubix-*): benchmark and test harness system properties are not configuration
      for (Path file : files.filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/main/java/")
          && ROOT.relativize(p).toString().startsWith("rubix-")).toList()) {
        Matcher matcher = LITERAL.matcher(Files.readString(file));
        while (matcher.find()) {
          assertThat(documented).as("key %s used in %s", matcher.group(1), ROOT.relativize(file)).containsKey(matcher.group(1));
        }
      }
    }
  }

  private static Map<String, String> documentedKeys() throws IOException {
    Map<String, String> keys = new HashMap<>();
    for (String line : Files.readAllLines(ROOT.resolve("docs/configuration.md"))) {
      Matcher matcher = ROW.matcher(line);
      if (matcher.find()) {
        keys.put(matcher.group(1), matcher.group(2));
      }
    }
    return keys;
  }
}
