"""The data every layer shares: messages, events, errors, secrets, approvals."""
