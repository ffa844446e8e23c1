#!/usr/bin/env bash
# Fetch Apache Kafka's published jars for each release line under kafka/ (one pom.xml per release)
# through Maven into its own cache (~/.m2), write their classpath to .kafka/RELEASE/classpath.txt and
# compile the oracle (kafka/oracle/Oracle.java) against them into .kafka/RELEASE/oracle/.
# Runs Maven only when a pom or the oracle changed, so later runs work offline. Where Java or Maven
# cannot be had it says so and stops without failing: the tests that need Kafka then skip naming the
# missing piece (or fail, under KAFKA_META_PROTO_REQUIRE_KAFKA=1).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v javac >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing a JDK and Maven (Debian's openjdk-17-jdk-headless, maven) for the Kafka oracle" >&2
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q openjdk-17-jdk-headless maven; } >/tmp/kafka-setup-apt.log 2>&1 \
      || echo "setup: could not install a JDK and Maven (see /tmp/kafka-setup-apt.log)" >&2
  fi
  for tool in javac mvn; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "setup: $tool is missing; the tests that run Kafka itself will skip" >&2
      exit 0
    fi
  done
fi

for pom in kafka/*/pom.xml; do
  release=$(basename "$(dirname "$pom")")
  cache=.kafka/$release
  stamp=$(cat "$pom" kafka/oracle/*.java | sha1sum | cut -c1-16)
  if [ -f "$cache/stamp" ] && [ "$(cat "$cache/stamp")" = "$stamp" ]; then
    continue
  fi
  echo "setup: fetching Apache Kafka $release through Maven and compiling the oracle" >&2
  rm -rf "$cache"
  mkdir -p "$cache"
  log=$cache/maven.log
  if ! mvn -B -q -Dstyle.color=never -f "$pom" dependency:build-classpath \
      -Dmdep.outputFile="$PWD/$cache/classpath.txt" >"$log" 2>&1; then
    echo "setup: Maven could not resolve Kafka $release (see $log)" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
  # The oracle serves release lines (folders named by a version), not tool-only folders (shell-4.3.1).
  if [[ $release =~ ^[0-9.]+$ ]]; then
    javac -nowarn -d "$cache/oracle" -cp "$(cat "$cache/classpath.txt")" kafka/oracle/*.java
  fi
  echo "$stamp" >"$cache/stamp"
done
