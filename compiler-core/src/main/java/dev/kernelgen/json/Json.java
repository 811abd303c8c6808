package dev.kernelgen.json;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * JSON as plain Java values: maps (written in their iteration order, so callers use {@code
 * LinkedHashMap} or {@code TreeMap} to keep output deterministic), lists, strings, numbers (a NaN
 * or infinite one written as null), booleans and null. Reading gives {@code LinkedHashMap}, {@code
 * ArrayList}, {@code String}, {@code Integer}/{@code Long}/{@code BigInteger}/{@code Double},
 * {@code Boolean} and null, and rejects malformed input (invalid UTF-8, trailing tokens, duplicate
 * members, NaN literals, nesting deeper than {@link #MAX_DEPTH}) with an {@link
 * IllegalArgumentException}.
 */
public final class Json {
  /** Deepest nesting read; our documents nest below 10, and a limit keeps hostile input cheap. */
  public static final int MAX_DEPTH = 64;

  private static final ObjectMapper MAPPER =
      JsonMapper.builder(
              com.fasterxml.jackson.core.JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
                  .build())
          .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .addModule(
              new SimpleModule()
                  .addSerializer(new ListSerializer())
                  .addSerializer(Double.class, new FiniteSerializer<>(Double.class))
                  .addSerializer(Float.class, new FiniteSerializer<>(Float.class)))
          .build();

  private static final ObjectWriter LINE = MAPPER.writer();
  private static final ObjectWriter PRETTY = MAPPER.writer(new Pretty());
  private static final ObjectReader READER = MAPPER.readerFor(Object.class);

  private Json() {}

  /**
   * {@code value} over several lines, ending with a newline: two-space indentation, one member per
   * line, {@code "name": value}, lists of numbers and booleans on one line ({@code [1, 2]}).
   */
  public static String pretty(Object value) {
    return write(PRETTY, value) + "\n";
  }

  /** {@code value} on one line without spaces or a newline (a line of a JSON-lines file). */
  public static String line(Object value) {
    return write(LINE, value);
  }

  /** The value of a JSON text. */
  public static Object parse(String text) {
    try {
      return READER.readValue(text);
    } catch (IOException e) {
      throw malformed(e);
    }
  }

  /** The value of UTF-8 encoded JSON; invalid UTF-8 is malformed input. */
  public static Object parse(byte[] utf8) {
    try {
      return READER.readValue(utf8);
    } catch (IOException e) {
      throw malformed(e);
    }
  }

  private static String write(ObjectWriter w, Object value) {
    try {
      return w.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("cannot write JSON: " + e.getOriginalMessage(), e);
    }
  }

  private static IllegalArgumentException malformed(IOException e) {
    String what =
        e instanceof JsonProcessingException j && j.getOriginalMessage() != null
            ? j.getOriginalMessage()
            : String.valueOf(e.getMessage());
    if (e instanceof JsonProcessingException j && j.getLocation() != null) {
      what += " at column " + j.getLocation().getColumnNr();
    }
    if (e instanceof JsonMappingException m && m.getCause() != null) {
      what += " (" + m.getCause().getMessage() + ")";
    }
    return new IllegalArgumentException(what.lines().findFirst().orElse(what), e);
  }

  private static boolean flat(List<?> l) {
    return l.stream().allMatch(x -> x instanceof Number || x instanceof Boolean);
  }

  /** Lists element by element, telling {@link Pretty} which ones to keep on one line. */
  private static final class ListSerializer extends StdSerializer<List<?>> {
    @SuppressWarnings({"unchecked", "rawtypes"})
    ListSerializer() {
      super((Class) List.class);
    }

    @Override
    public void serialize(List<?> l, JsonGenerator g, SerializerProvider provider)
        throws IOException {
      if (g.getPrettyPrinter() instanceof Pretty p && flat(l)) {
        p.nextArrayFlat = true;
      }
      g.writeStartArray(l, l.size());
      for (Object x : l) {
        provider.defaultSerializeValue(x, g);
      }
      g.writeEndArray();
    }
  }

  /**
   * JSON has no NaN or infinity: a missing measurement is null, never a string or a fake number.
   */
  private static final class FiniteSerializer<T extends Number> extends StdSerializer<T> {
    FiniteSerializer(Class<T> type) {
      super(type);
    }

    @Override
    public void serialize(T n, JsonGenerator g, SerializerProvider provider) throws IOException {
      double d = n.doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        g.writeNull();
      } else if (n instanceof Float f) {
        g.writeNumber(f);
      } else {
        g.writeNumber(d);
      }
    }
  }

  /** The manifests' layout: Jackson's default printer with two spaces and no space before ':'. */
  private static final class Pretty extends DefaultPrettyPrinter {
    private boolean nextArrayFlat;
    private boolean inFlatArray;

    Pretty() {
      super(
          Separators.createDefaultInstance()
              .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
              .withObjectEmptySeparator("")
              .withArrayEmptySeparator(""));
      DefaultIndenter twoSpaces = new DefaultIndenter("  ", "\n");
      indentObjectsWith(twoSpaces);
      indentArraysWith(twoSpaces);
    }

    @Override
    public DefaultPrettyPrinter createInstance() {
      return new Pretty();
    }

    @Override
    public void writeStartArray(JsonGenerator g) throws IOException {
      if (nextArrayFlat) {
        nextArrayFlat = false;
        inFlatArray = true;
        g.writeRaw('[');
      } else {
        super.writeStartArray(g);
      }
    }

    @Override
    public void beforeArrayValues(JsonGenerator g) throws IOException {
      if (!inFlatArray) {
        super.beforeArrayValues(g);
      }
    }

    @Override
    public void writeArrayValueSeparator(JsonGenerator g) throws IOException {
      if (inFlatArray) {
        g.writeRaw(", ");
      } else {
        super.writeArrayValueSeparator(g);
      }
    }

    @Override
    public void writeEndArray(JsonGenerator g, int values) throws IOException {
      if (inFlatArray) {
        inFlatArray = false;
        g.writeRaw(']');
      } else {
        super.writeEndArray(g, values);
      }
    }
  }
}
