// outpost-mochi-broker: the second MQTT v5 broker the bridge tests run
// against (mosquitto is the first). It is mochi-mqtt v2 (the Go module
// github.com/mochi-mqtt/server/v2) with a loopback TCP listener, anonymous
// access, and a log in the shape the tests read:
//
//	outpost-mochi-broker mochi-mqtt v2.7.9 running on 127.0.0.1:PORT   (ready)
//	Received PUBACK from CLIENT_ID (Mid: N)                            (one per QoS 1 ack)
//
// The PUBACK line copies mosquitto's "log_type all" wording on purpose, so
// the tests count acknowledgements the same way on both brokers.
// Sessions and queued messages live in memory: they survive a client's
// disconnect (persistent sessions with a Session Expiry Interval), not a
// broker restart. SIGTERM or SIGINT stops it.
//
//	outpost-mochi-broker -listen 127.0.0.1:PORT
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/hooks/auth"
	"github.com/mochi-mqtt/server/v2/listeners"
	"github.com/mochi-mqtt/server/v2/packets"
)

const mochiVersion = "v2.7.9" // keep in step with go.mod

// ackLog writes one line per completed QoS 1 flow (the subscriber's PUBACK).
type ackLog struct {
	mqtt.HookBase
}

func (h *ackLog) ID() string { return "outpost-ack-log" }

func (h *ackLog) Provides(b byte) bool { return b == mqtt.OnQosComplete }

func (h *ackLog) OnQosComplete(cl *mqtt.Client, pk packets.Packet) {
	if pk.FixedHeader.Type == packets.Puback {
		fmt.Printf("Received PUBACK from %s (Mid: %d)\n", cl.ID, pk.PacketID)
	}
}

func main() {
	listen := flag.String("listen", "127.0.0.1:1883", "host:port of the MQTT listener (loopback)")
	flag.Parse()

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)

	server := mqtt.New(&mqtt.Options{
		InlineClient: false,
		Logger:       slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
	// The bridge tests give their MQTT clients no credentials.
	if err := server.AddHook(new(auth.AllowHook), nil); err != nil {
		fmt.Fprintln(os.Stderr, "outpost-mochi-broker:", err)
		os.Exit(1)
	}
	if err := server.AddHook(new(ackLog), nil); err != nil {
		fmt.Fprintln(os.Stderr, "outpost-mochi-broker:", err)
		os.Exit(1)
	}
	if err := server.AddListener(listeners.NewTCP(listeners.Config{ID: "tcp", Address: *listen})); err != nil {
		fmt.Fprintln(os.Stderr, "outpost-mochi-broker:", err)
		os.Exit(1)
	}
	// Serve binds the listeners and returns; the clients run on goroutines.
	if err := server.Serve(); err != nil {
		fmt.Fprintln(os.Stderr, "outpost-mochi-broker:", err)
		os.Exit(1)
	}
	fmt.Printf("outpost-mochi-broker mochi-mqtt %s running on %s\n", mochiVersion, *listen)
	<-stop
	_ = server.Close()
}
