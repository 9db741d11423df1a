package org.outpost.consumer.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The official RocketMQ Java producer driven line by line, so that bench/rocketmq_batch_bench can
 * measure it beside our own producer on the same broker in the same run, its JVM warm across
 * rounds. Each message is built as the C++ bench builds it (tag, key, one user property, a body of
 * the given size); a device's messages go to one queue, the queue list sorted by broker name and
 * queue id and indexed by the device name's hash, single or in batches of that queue.
 *
 * <p>Arguments: the name server address and the producer group. Prints {@code ready} once started;
 * then per input line {@code send TOPIC COUNT BATCH DEVICES BODY_BYTES RUN} (BATCH 1: one request
 * per message) sends COUNT messages and prints {@code done COUNT} or {@code failed REASON}; {@code
 * quit} (or the end of input) shuts the producer down.
 */
public final class ProducerBench {
    private ProducerBench() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: ProducerBench NAME_SERVER_ADDRESS PRODUCER_GROUP");
            System.exit(2);
        }
        DefaultMQProducer producer = new DefaultMQProducer(args[1]);
        producer.setNamesrvAddr(args[0]);
        producer.setSendMsgTimeout(3000);
        producer.start();
        System.out.println("ready");
        System.out.flush();
        BufferedReader input =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            for (String line; (line = input.readLine()) != null; ) {
                String[] words = line.trim().split(" ");
                if (words[0].equals("quit")) {
                    break;
                }
                if (!words[0].equals("send") || words.length != 7) {
                    System.out.println("failed unknown command: " + line);
                } else {
                    System.out.println(run(producer, words));
                }
                System.out.flush();
            }
        } finally {
            producer.shutdown();
        }
    }

    private static String run(DefaultMQProducer producer, String[] words) {
        String topic = words[1];
        int count = Integer.parseInt(words[2]);
        int batch = Integer.parseInt(words[3]);
        int devices = Integer.parseInt(words[4]);
        byte[] body = new byte[Integer.parseInt(words[5])];
        Arrays.fill(body, (byte) 'b');
        String run = words[6];
        try {
            List<MessageQueue> queues = new ArrayList<>(producer.fetchPublishMessageQueues(topic));
            queues.sort(Comparator.comparing(MessageQueue::getBrokerName)
                    .thenComparingInt(MessageQueue::getQueueId));
            int sent = 0;
            int request = 0;
            while (sent < count) {
                String device = "device-" + (request % devices);
                MessageQueue queue =
                        queues.get(Math.floorMod(device.hashCode(), queues.size()));
                int size = Math.min(batch, count - sent);
                List<Message> messages = new ArrayList<>(size);
                for (int i = 0; i < size; ++i) {
                    Message message = new Message(topic, "bench", run + "-" + (sent + i), body);
                    message.putUserProperty("device", device);
                    messages.add(message);
                }
                SendResult result = batch == 1
                        ? producer.send(messages.get(0), queue)
                        : producer.send(messages, queue);
                if (result.getSendStatus() != SendStatus.SEND_OK) {
                    return "failed " + result.getSendStatus();
                }
                sent += size;
                ++request;
            }
            return "done " + sent;
        } catch (Exception e) {
            return "failed " + e.toString().replace('\n', ' ');
        }
    }
}
