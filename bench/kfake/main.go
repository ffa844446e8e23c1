// Command kfake serves franz-go's fake Kafka cluster (github.com/twmb/franz-go/pkg/kfake) on
// loopback ports, for bench/fake_cluster.py to measure next to the package's own fake cluster.
//
//	kfake [-brokers N] [-data DIR]
//
// The first line of its standard output is the bootstrap servers (host:port,host:port,...),
// printed once every broker listens; it serves until its standard input closes or it gets
// SIGTERM or SIGINT. Without -data the cluster keeps its logs in memory (kfake's default).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
)

func main() {
	brokers := flag.Int("brokers", 3, "brokers in the cluster")
	data := flag.String("data", "", "a directory to keep the logs in (default: memory)")
	flag.Parse()

	opts := []kfake.Opt{kfake.NumBrokers(*brokers)}
	if *data != "" {
		opts = append(opts, kfake.DataDir(*data))
	}
	cluster, err := kfake.NewCluster(opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kfake:", err)
		os.Exit(1)
	}
	defer cluster.Close()

	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(out, strings.Join(cluster.ListenAddrs(), ","))
	out.Flush()

	done := make(chan struct{}, 2)
	go func() { // the parent closing our standard input ends the run
		io.Copy(io.Discard, os.Stdin)
		done <- struct{}{}
	}()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-signals
		done <- struct{}{}
	}()
	<-done
}
