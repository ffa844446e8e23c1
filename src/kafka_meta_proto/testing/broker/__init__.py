"""The fake cluster's broker: partitions kept as real log segments, and the requests that read and
write them, over the server framework."""
