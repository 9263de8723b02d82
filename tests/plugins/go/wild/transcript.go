package wild

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Entry is one line of a Claude Code shaped JSONL transcript.
type Entry map[string]any

// ParseEntry is a line's JSON object (numbers kept as json.Number); false
// for a line that is not one (a half-written line is skipped).
func ParseEntry(line []byte) (Entry, bool) {
	decoder := json.NewDecoder(bytes.NewReader(line))
	decoder.UseNumber()
	var entry Entry
	if err := decoder.Decode(&entry); err != nil || decoder.More() {
		return nil, false
	}
	return entry, entry != nil
}

func (e Entry) str(key string) string {
	s, _ := e[key].(string)
	return s
}

func (e Entry) message() map[string]any {
	m, _ := e["message"].(map[string]any)
	return m
}

var fileTools = map[string]string{
	"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path",
	"NotebookEdit": "notebook_path",
}

// FilesOf is the paths the assistant's tool calls wrote, in order, once each.
func FilesOf(entries []Entry) []string {
	files := []string{}
	seen := map[string]bool{}
	for _, entry := range entries {
		blocks, _ := entry.message()["content"].([]any)
		if entry.str("type") != "assistant" {
			continue
		}
		for _, b := range blocks {
			block, _ := b.(map[string]any)
			if block == nil || block["type"] != "tool_use" {
				continue
			}
			name, _ := block["name"].(string)
			key, ok := fileTools[name]
			input, _ := block["input"].(map[string]any)
			path, _ := input[key].(string)
			if ok && path != "" && !seen[path] {
				seen[path] = true
				files = append(files, path)
			}
		}
	}
	return files
}

// PromptsOf is the user's prompts: a string content, or the text blocks of
// a content array (tool results are not prompts).
func PromptsOf(entries []Entry) []string {
	found := []string{}
	for _, entry := range entries {
		if entry.str("type") != "user" {
			continue
		}
		var text string
		switch content := entry.message()["content"].(type) {
		case string:
			text = content
		case []any:
			var texts []string
			for _, b := range content {
				block, _ := b.(map[string]any)
				if s, ok := block["text"].(string); ok && block["type"] == "text" {
					texts = append(texts, s)
				}
			}
			text = strings.Join(texts, "\n")
		default:
			continue
		}
		if strings.TrimSpace(text) != "" {
			found = append(found, text)
		}
	}
	return found
}

// SummaryOf is the last summary entry's text.
func SummaryOf(entries []Entry) string {
	summary := ""
	for _, entry := range entries {
		if s, ok := entry["summary"].(string); ok && entry.str("type") == "summary" {
			summary = s
		}
	}
	return summary
}

// Tokens is the answer of calculate-tokens.
type Tokens struct {
	InputTokens         int64   `json:"input_tokens"`
	CacheCreationTokens int64   `json:"cache_creation_tokens"`
	CacheReadTokens     int64   `json:"cache_read_tokens"`
	OutputTokens        int64   `json:"output_tokens"`
	APICallCount        int64   `json:"api_call_count"`
	SubagentTokens      *Tokens `json:"subagent_tokens"`
}

// TokensOf sums message.usage of the assistant entries.
func TokensOf(entries []Entry) Tokens {
	var totals Tokens
	for _, entry := range entries {
		usage, _ := entry.message()["usage"].(map[string]any)
		if entry.str("type") != "assistant" || usage == nil {
			continue
		}
		for key, field := range map[string]*int64{
			"input_tokens":                &totals.InputTokens,
			"cache_creation_input_tokens": &totals.CacheCreationTokens,
			"cache_read_input_tokens":     &totals.CacheReadTokens,
			"output_tokens":               &totals.OutputTokens,
		} {
			if n, ok := usage[key].(json.Number); ok {
				if v, err := n.Int64(); err == nil && v > 0 {
					*field += v
				}
			}
		}
		totals.APICallCount++
	}
	return totals
}
