"""Keeping the schemas current, beside the generator's stages: ``refresh`` rebuilds schemas/kafka/
from Kafka's jars and follows Kafka's releases forward; ``compat`` reports what changed between
two schema trees and which changes break the wire."""
