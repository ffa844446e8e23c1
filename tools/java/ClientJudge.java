// Kafka's own Java clients (kafka-clients) as a judge of a cluster: each command does one thing a
// user of the clients does and prints what it saw, one tab-separated line per fact, so a test can
// compare a fake cluster's answers with a real one's. Run in Java's source-file mode:
//   java -cp <kafka-clients and its dependencies> tools/java/ClientJudge.java COMMAND ARGS...
// Commands:
//   produce BOOTSTRAP TOPIC N CODEC[,CODEC...] an idempotent producer per codec, acks=all, N
//                                              records each: "acked P O VALUE"
//   assign BOOTSTRAP TOPIC N                   consumer with assign() from the beginning: "record P O VALUE"
//   group BOOTSTRAP TOPIC GROUP N SECONDS      consumer in a group until N records or SECONDS
//                                              idle, committing as it goes: "record P O VALUE",
//                                              "assigned P,P", "revoked P,P", "committed P O"
//   create BOOTSTRAP TOPIC PARTITIONS RF       create a topic: "created TOPIC"
//   admin BOOTSTRAP TOPIC PARTITIONS RF        create, describe, read configs, delete: "created",
//                                              "partition P LEADER REPLICAS", "config K V", "deleted"
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.*;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.*;

public class ClientJudge {
    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "produce" -> {
                for (String codec : args[4].split(",")) {
                    produce(args[1], args[2], Integer.parseInt(args[3]), codec);
                }
            }
            case "assign" -> assign(args[1], args[2], Integer.parseInt(args[3]));
            case "group" -> group(args[1], args[2], args[3], Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]));
            case "create" -> create(args[1], args[2], Integer.parseInt(args[3]),
                    Short.parseShort(args[4]));
            case "admin" -> admin(args[1], args[2], Integer.parseInt(args[3]),
                    Short.parseShort(args[4]));
            default -> throw new IllegalArgumentException("unknown command " + args[0]);
        }
    }

    static void produce(String bootstrap, String topic, int n, String compression) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("enable.idempotence", "true");
        p.put("acks", "all");
        p.put("compression.type", compression);
        p.put("linger.ms", "5");
        p.put("delivery.timeout.ms", "60000");
        try (Producer<String, String> producer =
                     new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, "key " + i, compression + " " + i)));
            }
            for (int i = 0; i < n; i++) {
                RecordMetadata m = sent.get(i).get(60, TimeUnit.SECONDS);
                System.out.println("acked\t" + m.partition() + "\t" + m.offset() + "\t" + compression + " " + i);
            }
        }
    }

    static Properties consumerProperties(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("auto.offset.reset", "earliest");
        p.put("enable.auto.commit", "false");
        return p;
    }

    static void assign(String bootstrap, String topic, int n) {
        try (Consumer<String, String> consumer = new KafkaConsumer<>(
                consumerProperties(bootstrap), new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            int seen = 0;
            long deadline = System.currentTimeMillis() + 60_000;
            while (seen < n && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    System.out.println("record\t" + r.partition() + "\t" + r.offset() + "\t" + r.value());
                    seen++;
                }
            }
        }
    }

    static String names(Collection<TopicPartition> partitions) {
        List<Integer> numbers = new ArrayList<>();
        for (TopicPartition tp : partitions) numbers.add(tp.partition());
        Collections.sort(numbers);
        StringJoiner joined = new StringJoiner(",");
        for (int number : numbers) joined.add(Integer.toString(number));
        return joined.toString();
    }

    static void group(String bootstrap, String topic, String group, int n, int idleSeconds) {
        Properties p = consumerProperties(bootstrap);
        p.put("group.id", group);
        p.put("session.timeout.ms", "10000");
        p.put("heartbeat.interval.ms", "500");
        try (Consumer<String, String> consumer = new KafkaConsumer<>(
                p, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    System.out.println("revoked\t" + names(partitions));
                }

                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    System.out.println("assigned\t" + names(partitions));
                }
            });
            int seen = 0;
            long idleSince = System.currentTimeMillis();
            while (seen < n && System.currentTimeMillis() - idleSince < idleSeconds * 1000L) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(300));
                if (records.isEmpty()) continue;
                idleSince = System.currentTimeMillis();
                for (ConsumerRecord<String, String> r : records) {
                    System.out.println("record\t" + r.partition() + "\t" + r.offset() + "\t" + r.value());
                    seen++;
                }
                consumer.commitSync();
                for (TopicPartition tp : records.partitions()) {
                    System.out.println("committed\t" + tp.partition() + "\t" + consumer.position(tp));
                }
            }
            System.out.flush();
        }
    }

    static Admin adminClient(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        return Admin.create(p);
    }

    static void create(String bootstrap, String topic, int partitions, short rf) throws Exception {
        try (Admin admin = adminClient(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, rf))).all().get(60, TimeUnit.SECONDS);
            System.out.println("created\t" + topic);
        }
    }

    static void admin(String bootstrap, String topic, int partitions, short rf) throws Exception {
        create(bootstrap, topic, partitions, rf);
        try (Admin admin = adminClient(bootstrap)) {
            TopicDescription described = null;
            long deadline = System.currentTimeMillis() + 30_000;
            while (described == null || described.partitions().size() < partitions) {
                if (System.currentTimeMillis() > deadline) throw new TimeoutException("describe");
                try {
                    described = admin.describeTopics(List.of(topic)).allTopicNames()
                            .get(30, TimeUnit.SECONDS).get(topic);
                } catch (ExecutionException e) {
                    Thread.sleep(100);
                }
            }
            for (TopicPartitionInfo info : described.partitions()) {
                System.out.println("partition\t" + info.partition() + "\t" + info.leader().id()
                        + "\t" + info.replicas().size() + "\t" + info.isr().size());
            }
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS)
                    .get(resource);
            for (String key : List.of("cleanup.policy", "retention.ms", "compression.type")) {
                ConfigEntry entry = config.get(key);
                System.out.println("config\t" + key + "\t" + (entry == null ? "(absent)" : entry.value()));
            }
            admin.deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
            System.out.println("deleted\t" + topic);
        }
    }
}
