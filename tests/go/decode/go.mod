module agentconform/godiff

go 1.26
