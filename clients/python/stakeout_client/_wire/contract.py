"""The contract version these wire types were generated from (`make clients`)."""

CONTRACT_VERSION = "1.0.0"
