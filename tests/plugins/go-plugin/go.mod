module example.com/entire-agent-gosmall

go 1.21
