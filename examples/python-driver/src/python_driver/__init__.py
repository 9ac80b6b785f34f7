"""An AgentAPI driver on wirekit: runs commands, fetches from a local HTTP server."""
