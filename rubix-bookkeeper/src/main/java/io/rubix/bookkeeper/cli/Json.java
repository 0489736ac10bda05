package io.rubix.bookkeeper.cli;

import java.util.List;
import java.util.Map;

/** Renders maps, lists, strings, numbers and booleans as compact JSON (enough for {@code rubix stats --json}). */
final class Json {
  private Json() {}

  static String render(Object value) {
    StringBuilder text = new StringBuilder();
    append(text, value);
    return text.toString();
  }

  private static void append(StringBuilder text, Object value) {
    if (value == null) {
      text.append("null");
    } else if (value instanceof Map<?, ?> map) {
      text.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        if (!first) {
          text.append(',');
        }
        first = false;
        string(text, String.valueOf(entry.getKey()));
        text.append(':');
        append(text, entry.getValue());
      }
      text.append('}');
    } else if (value instanceof List<?> list) {
      text.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          text.append(',');
        }
        append(text, list.get(i));
      }
      text.append(']');
    } else if (value instanceof Number || value instanceof Boolean) {
      text.append(value);
    } else {
      string(text, value.toString());
    }
  }

  private static void string(StringBuilder text, String value) {
    text.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> text.append("\\\"");
        case '\\' -> text.append("\\\\");
        case '\n' -> text.append("\\n");
        case '\r' -> text.append("\\r");
        case '\t' -> text.append("\\t");
        default -> {
          if (c < 0x20) {
            text.append(String.format("\\u%04x", (int) c));
          } else {
            text.append(c);
          }
        }
      }
    }
    text.append('"');
  }
}
