"""The fake cluster's group coordinator: the classic consumer-group protocol (join, sync,
heartbeat, leave) and committed offsets."""
