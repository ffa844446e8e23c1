import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * Kafka's own generated message classes behind a line protocol, for differential tests.
 *
 * <p>Each line on stdin is one JSON request; each answer is one JSON line on stdout, in order:
 *
 * <ul>
 *   <li>{"op":"encode","name":N,"version":V,"data":{...}}: the bytes Kafka writes for its JSON form
 *       -> {"ok":true,"hex":...}
 *   <li>{"op":"decode","name":N,"version":V,"hex":...}: what Kafka reads -> {"ok":true,"data":{...},
 *       "consumed":n,"reencoded":hex}
 *   <li>{"op":"info","name":N} -> {"ok":true,"name","class","lowest","highest"}
 *   <li>{"op":"list"} -> {"ok":true,"messages":[info...]}
 * </ul>
 *
 * <p>Records fields are shown as the bytes read (Kafka's converters print them empty). A JSON
 * object may carry "_unknownTaggedFields": [{"tag":T,"data":base64}], an extension of
 * ours: Kafka's JSON converters drop unknown tagged fields, so this program moves them between the
 * JSON tree and each struct's unknownTaggedFields() itself. Failures come back as {"ok":false,
 * "error":...}; the process only ends when stdin does.
 */
public final class Oracle {
    private static final String UNKNOWN = "_unknownTaggedFields";
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .disable(JsonWriteFeature.WRITE_NAN_AS_STRINGS)
            .build();
    private static final HexFormat HEX = HexFormat.of();

    /** Schema name (and fully qualified class name) -> generated message class. */
    private final Map<String, Class<? extends Message>> classes = new TreeMap<>();
    /** Simple names claimed by more than one class: refused rather than guessed. */
    private final Map<String, List<String>> ambiguous = new TreeMap<>();

    public static void main(String[] args) throws IOException {
        Oracle oracle = new Oracle();
        oracle.indexClassPath();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            out.write(oracle.answer(line));
            out.write('\n');
            if (!in.ready()) out.flush(); // pipelined requests share one flush
        }
        out.flush();
    }

    /** Every generated message class on the class path: the ones with a JSON converter. */
    private void indexClassPath() throws IOException {
        Map<String, List<String>> bySimpleName = new TreeMap<>();
        for (String path : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!path.endsWith(".jar")) continue;
            try (JarFile jar = new JarFile(path)) {
                Enumeration<JarEntry> entries = jar.entries();
                while (entries.hasMoreElements()) {
                    String entry = entries.nextElement().getName();
                    if (!entry.endsWith("JsonConverter.class") || entry.contains("$")) continue;
                    String converter = entry.substring(0, entry.length() - ".class".length()).replace('/', '.');
                    String data = converter.substring(0, converter.length() - "JsonConverter".length());
                    Class<?> cls;
                    try {
                        cls = Class.forName(data, false, Oracle.class.getClassLoader());
                    } catch (ClassNotFoundException | LinkageError e) {
                        continue;
                    }
                    if (!Message.class.isAssignableFrom(cls)) continue;
                    classes.put(data, cls.asSubclass(Message.class));
                    bySimpleName.computeIfAbsent(cls.getSimpleName(), k -> new ArrayList<>()).add(data);
                }
            }
        }
        for (Map.Entry<String, List<String>> e : bySimpleName.entrySet()) {
            if (e.getValue().size() == 1) {
                classes.put(e.getKey(), classes.get(e.getValue().get(0)));
            } else {
                ambiguous.put(e.getKey(), e.getValue());
            }
        }
    }

    /** The class of a schema name: requests, responses and headers add "Data" to it. */
    private Class<? extends Message> lookup(String name) {
        for (String candidate : new String[] {name, name + "Data"}) {
            if (ambiguous.containsKey(candidate)) {
                throw new IllegalArgumentException(candidate + " names several classes: " + ambiguous.get(candidate));
            }
            Class<? extends Message> cls = classes.get(candidate);
            if (cls != null) return cls;
        }
        throw new IllegalArgumentException("no message class for " + name);
    }

    private String answer(String line) {
        ObjectNode reply = JsonNodeFactory.instance.objectNode();
        try {
            JsonNode request = JSON.readTree(line);
            if (request.has("id")) reply.set("id", request.get("id"));
            String op = request.path("op").asText();
            switch (op) {
                case "encode" -> encode(request, reply);
                case "decode" -> decode(request, reply);
                case "info" -> info(lookup(request.path("name").asText()), reply);
                case "list" -> list(reply);
                default -> throw new IllegalArgumentException("unknown op '" + op + "'");
            }
            reply.put("ok", true);
        } catch (Throwable t) {
            Throwable cause = t instanceof InvocationTargetException ? t.getCause() : t;
            reply.put("ok", false);
            reply.put("error", cause.getClass().getName() + ": " + cause.getMessage());
        }
        try {
            return JSON.writeValueAsString(reply);
        } catch (IOException e) {
            return "{\"ok\":false,\"error\":\"cannot write the answer: " + e.getClass().getName() + "\"}";
        }
    }

    private static short version(JsonNode request) {
        JsonNode v = request.get("version");
        if (v == null || !v.canConvertToInt()) throw new IllegalArgumentException("no version");
        return (short) v.asInt();
    }

    private void encode(JsonNode request, ObjectNode reply) throws Exception {
        Class<? extends Message> cls = lookup(request.path("name").asText());
        short version = version(request);
        JsonNode data = request.get("data");
        Method read = converter(cls).getMethod("read", JsonNode.class, short.class);
        Message message = (Message) read.invoke(null, data, version);
        addUnknownTags(data, message);
        reply.put("hex", HEX.formatHex(serialize(message, version)));
    }

    private void decode(JsonNode request, ObjectNode reply) throws Exception {
        Class<? extends Message> cls = lookup(request.path("name").asText());
        short version = version(request);
        ByteBuffer buffer = ByteBuffer.wrap(HEX.parseHex(request.path("hex").asText()));
        Message message = cls.getConstructor().newInstance();
        message.read(new ByteBufferAccessor(buffer), version);
        Method write = converter(cls).getMethod("write", cls, short.class);
        JsonNode data = (JsonNode) write.invoke(null, message, version);
        collectUnknownTags(message, data);
        reply.set("data", data);
        reply.put("consumed", buffer.position());
        reply.put("reencoded", HEX.formatHex(serialize(message, version)));
    }

    private static void info(Class<? extends Message> cls, ObjectNode reply) throws Exception {
        Message message = cls.getConstructor().newInstance();
        reply.put("name", schemaName(cls));
        reply.put("class", cls.getName());
        reply.put("lowest", message.lowestSupportedVersion());
        reply.put("highest", message.highestSupportedVersion());
    }

    /** Kafka names the class of a request, response or header after its schema plus "Data". */
    private static String schemaName(Class<? extends Message> cls) throws Exception {
        String simple = cls.getSimpleName();
        if (!simple.endsWith("Data")) return simple;
        boolean rpc = simple.endsWith("HeaderData")
                || (ApiMessage.class.isAssignableFrom(cls)
                        && ((ApiMessage) cls.getConstructor().newInstance()).apiKey() >= 0);
        return rpc ? simple.substring(0, simple.length() - "Data".length()) : simple;
    }

    private void list(ObjectNode reply) throws Exception {
        ArrayNode messages = reply.putArray("messages");
        for (Map.Entry<String, Class<? extends Message>> e : classes.entrySet()) {
            if (e.getKey().contains(".")) continue; // listed under its simple name
            ObjectNode item = messages.addObject();
            info(e.getValue(), item);
        }
        ArrayNode clashes = reply.putArray("ambiguous");
        for (String name : ambiguous.keySet()) clashes.add(name);
    }

    private static Class<?> converter(Class<?> cls) throws ClassNotFoundException {
        return Class.forName(cls.getName() + "JsonConverter", true, cls.getClassLoader());
    }

    /** Kafka's serializer: size first (which fills the cache), then write into a buffer of that size. */
    private static byte[] serialize(Message message, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = message.size(cache, version);
        ByteBuffer buffer = ByteBuffer.allocate(size);
        message.write(new ByteBufferAccessor(buffer), cache, version);
        if (buffer.hasRemaining()) {
            throw new IllegalStateException("Kafka sized " + size + " bytes but wrote " + buffer.position());
        }
        return buffer.array();
    }

    // Unknown tagged fields: walk the JSON tree and the message in step. JSON keys are the fields'
    // camel-case names, which are also the names of the generated accessors.

    private static void addUnknownTags(JsonNode json, Message message) throws Exception {
        if (json == null || !json.isObject() || message == null) return;
        JsonNode tags = json.get(UNKNOWN);
        if (tags != null && tags.isArray()) {
            for (JsonNode tag : tags) {
                byte[] data = Base64.getDecoder().decode(tag.path("data").asText());
                message.unknownTaggedFields().add(new RawTaggedField(tag.path("tag").asInt(), data));
            }
        }
        for (Map.Entry<String, JsonNode> field : json.properties()) {
            forEachChild(message, field.getKey(), field.getValue(), Oracle::addUnknownTags);
        }
    }

    private static void collectUnknownTags(Message message, JsonNode json) throws Exception {
        if (json == null || !json.isObject() || message == null) return;
        List<RawTaggedField> unknown = message.unknownTaggedFields();
        if (unknown != null && !unknown.isEmpty()) {
            ArrayNode tags = ((ObjectNode) json).putArray(UNKNOWN);
            for (RawTaggedField field : unknown) {
                ObjectNode tag = tags.addObject();
                tag.put("tag", field.tag());
                tag.put("data", Base64.getEncoder().encodeToString(field.data()));
            }
        }
        List<Map.Entry<String, JsonNode>> snapshot = new ArrayList<>(json.properties()); // the loop adds keys
        for (Map.Entry<String, JsonNode> field : snapshot) {
            showRecords(message, field.getKey(), (ObjectNode) json);
            forEachChild(message, field.getKey(), field.getValue(), (j, m) -> collectUnknownTags(m, j));
        }
    }

    /**
     * Kafka's converters print a records field as empty bytes (they keep record data out of request
     * logs); put the bytes that were read there instead, so the JSON form says what Kafka holds.
     */
    private static void showRecords(Message message, String key, ObjectNode json) throws Exception {
        if (!json.get(key).isBinary() && !json.get(key).isTextual()) return;
        Method accessor;
        try {
            accessor = message.getClass().getMethod(key);
        } catch (NoSuchMethodException e) {
            return;
        }
        Object value = accessor.invoke(message);
        // MemoryRecords, found by name: its package moved in Kafka 4 (record.internal).
        if (value != null && value.getClass().getSimpleName().equals("MemoryRecords")) {
            ByteBuffer buffer = ((ByteBuffer) value.getClass().getMethod("buffer").invoke(value)).duplicate();
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            json.put(key, Base64.getEncoder().encodeToString(bytes));
        }
    }

    @FunctionalInterface
    private interface Visit {
        void apply(JsonNode json, Message message) throws Exception;
    }

    /** Pairs a struct (or array of structs) field's JSON with the message objects it was read into. */
    private static void forEachChild(Message message, String key, JsonNode json, Visit visit) throws Exception {
        if (key.equals(UNKNOWN) || !(json.isObject() || json.isArray())) return;
        Method accessor;
        try {
            accessor = message.getClass().getMethod(key);
        } catch (NoSuchMethodException e) {
            return;
        }
        Object value = accessor.invoke(message);
        if (json.isObject() && value instanceof Message child) {
            visit.apply(json, child);
        } else if (json.isArray() && value instanceof Collection<?> items) {
            Iterator<?> it = items.iterator();
            for (JsonNode element : json) {
                if (!it.hasNext()) break;
                Object item = it.next();
                if (element.isObject() && item instanceof Message child) visit.apply(element, child);
            }
        }
    }
}
