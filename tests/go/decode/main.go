// Command decode is agent-conform's Go differential (tests/all/godiff.rs):
// it decodes bytes with Go's encoding/json into structs written from the
// protocol's field lists (docs: /shared/spec/external-agent-protocol.txt),
// standard library only and none of the host's code, and prints what Go
// made of them, so that the harness's model of the host's decoding can be
// compared with Go itself.
//
// Input, one case a line: the shape's name, a space, the bytes in standard
// base64. Output, one line a case: {"ok":true,"value":...} with the struct
// re-marshalled, or {"ok":false,"error":"..."}. One process serves every
// case of a run.
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// Capabilities is info's capabilities object: the keys the host reads.
type Capabilities struct {
	Hooks                  bool `json:"hooks"`
	TranscriptAnalyzer     bool `json:"transcript_analyzer"`
	TranscriptPreparer     bool `json:"transcript_preparer"`
	TokenCalculator        bool `json:"token_calculator"`
	CompactTranscript      bool `json:"compact_transcript"`
	TextGenerator          bool `json:"text_generator"`
	StreamingTextGenerator bool `json:"streaming_text_generator"`
	HookResponseWriter     bool `json:"hook_response_writer"`
	SubagentAwareExtractor bool `json:"subagent_aware_extractor"`
}

// Info is info's answer.
type Info struct {
	ProtocolVersion int           `json:"protocol_version"`
	Name            string        `json:"name"`
	Type            string        `json:"type"`
	Description     string        `json:"description"`
	IsPreview       bool          `json:"is_preview"`
	ProtectedDirs   []string      `json:"protected_dirs"`
	HookNames       []string      `json:"hook_names"`
	ProtectedFiles  []string      `json:"protected_files"`
	CallerEnvVars   []string      `json:"caller_env_vars"`
	Capabilities    *Capabilities `json:"capabilities"`
}

// AgentSession is read-session's answer; start_time is a string that must
// parse as RFC 3339 when non-empty (checked after decoding).
type AgentSession struct {
	SessionID     string   `json:"session_id"`
	AgentName     string   `json:"agent_name"`
	RepoPath      string   `json:"repo_path"`
	SessionRef    string   `json:"session_ref"`
	StartTime     string   `json:"start_time"`
	NativeData    []byte   `json:"native_data"`
	ModifiedFiles []string `json:"modified_files"`
	NewFiles      []string `json:"new_files"`
	DeletedFiles  []string `json:"deleted_files"`
}

// TokenUsage is calculate-tokens' answer; subagent_tokens has "the same
// structure".
type TokenUsage struct {
	InputTokens         int         `json:"input_tokens"`
	OutputTokens        int         `json:"output_tokens"`
	CacheCreationTokens int         `json:"cache_creation_tokens"`
	CacheReadTokens     int         `json:"cache_read_tokens"`
	APICallCount        int         `json:"api_call_count"`
	SubagentTokens      *TokenUsage `json:"subagent_tokens"`
}

// Asset is one asset of compact-transcript's answer.
type Asset struct {
	Name      string `json:"name"`
	MediaType string `json:"media_type"`
	Data      []byte `json:"data"`
}

// Event is parse-hook's answer.
type Event struct {
	Type              int             `json:"type"`
	SessionID         string          `json:"session_id"`
	PreviousSessionID string          `json:"previous_session_id"`
	SessionRef        string          `json:"session_ref"`
	Prompt            string          `json:"prompt"`
	Model             string          `json:"model"`
	Timestamp         string          `json:"timestamp"`
	ToolUseID         string          `json:"tool_use_id"`
	SubagentID        string          `json:"subagent_id"`
	ToolInput         json.RawMessage `json:"tool_input"`
	SubagentType      string          `json:"subagent_type"`
	TaskDescription   string          `json:"task_description"`
	ResponseMessage   string          `json:"response_message"`
	Metadata          map[string]any  `json:"metadata"`
}

// target is a fresh value of the shape's struct, and the check the host
// makes after decoding it.
func target(shape string) (any, func() error, error) {
	none := func() error { return nil }
	switch shape {
	case "info":
		return &Info{}, none, nil
	case "detect":
		return &struct {
			Present bool `json:"present"`
		}{}, none, nil
	case "get-session-id":
		return &struct {
			SessionID string `json:"session_id"`
		}{}, none, nil
	case "get-session-dir":
		return &struct {
			SessionDir string `json:"session_dir"`
		}{}, none, nil
	case "resolve-session-file":
		return &struct {
			SessionFile string `json:"session_file"`
		}{}, none, nil
	case "read-session":
		s := &AgentSession{}
		return s, func() error {
			if s.StartTime == "" {
				return nil
			}
			_, err := time.Parse(time.RFC3339, s.StartTime)
			return err
		}, nil
	case "chunk-transcript":
		return &struct {
			Chunks [][]byte `json:"chunks"`
		}{}, none, nil
	case "format-resume-command":
		return &struct {
			Command string `json:"command"`
		}{}, none, nil
	case "install-hooks":
		return &struct {
			HooksInstalled int `json:"hooks_installed"`
		}{}, none, nil
	case "are-hooks-installed":
		return &struct {
			Installed bool `json:"installed"`
		}{}, none, nil
	case "get-transcript-position":
		return &struct {
			Position int `json:"position"`
		}{}, none, nil
	case "extract-modified-files":
		return &struct {
			Files           []string `json:"files"`
			CurrentPosition int      `json:"current_position"`
		}{}, none, nil
	case "extract-all-modified-files":
		return &struct {
			Files []string `json:"files"`
		}{}, none, nil
	case "extract-prompts":
		return &struct {
			Prompts []string `json:"prompts"`
		}{}, none, nil
	case "extract-summary":
		return &struct {
			Summary    string `json:"summary"`
			HasSummary bool   `json:"has_summary"`
		}{}, none, nil
	case "calculate-tokens", "calculate-total-tokens":
		return &TokenUsage{}, none, nil
	case "generate-text":
		return &struct {
			Text string `json:"text"`
		}{}, none, nil
	case "compact-transcript":
		return &struct {
			Transcript []byte  `json:"transcript"`
			Assets     []Asset `json:"assets"`
		}{}, none, nil
	case "event":
		return &Event{}, none, nil
	}
	return nil, nil, fmt.Errorf("unknown shape %q", shape)
}

// decode is what Go makes of data as the shape: the struct or the error.
func decode(shape string, data []byte) (any, error) {
	if shape == "time" {
		t, err := time.Parse(time.RFC3339, string(data))
		if err != nil {
			return nil, err
		}
		return t.Format(time.RFC3339Nano), nil
	}
	v, check, err := target(shape)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return nil, err
	}
	if err := check(); err != nil {
		return nil, err
	}
	if e, ok := v.(*Event); ok {
		shown := *e
		if e.ToolInput != nil {
			var raw any
			d := json.NewDecoder(strings.NewReader(string(e.ToolInput)))
			d.UseNumber()
			if err := d.Decode(&raw); err != nil {
				return nil, fmt.Errorf("re-reading tool_input: %w", err)
			}
			capped, _ := json.Marshal(shallow(raw, 0))
			shown.ToolInput = capped
		}
		if e.Metadata != nil {
			shown.Metadata = shallow(e.Metadata, 0).(map[string]any)
		}
		return &shown, nil
	}
	return v, nil
}

// deepest is how deep a value inside tool_input or metadata is shown: the
// harness compares no deeper (its reading of a deeper value is not the
// question; whether the document decodes is).
const deepest = 64

// shallow is v with every value below deepest levels replaced by "<deep>",
// and every number a float64 (a number no float64 holds, as its text, as
// the harness keeps it).
func shallow(v any, depth int) any {
	if depth >= deepest {
		return "<deep>"
	}
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = shallow(x, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = shallow(x, depth+1)
		}
		return out
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return v.String()
		}
		return f
	}
	return v
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for {
		line, err := in.ReadString('\n')
		line = strings.TrimRight(line, "\n")
		if line != "" {
			answer(out, line)
		}
		if err != nil {
			return
		}
		if in.Buffered() == 0 {
			out.Flush()
		}
	}
}

// answer decodes one case and prints its line.
func answer(out *bufio.Writer, line string) {
	shape, encoded, _ := strings.Cut(line, " ")
	var reply map[string]any
	data, err := base64.StdEncoding.DecodeString(encoded)
	if err == nil {
		var v any
		v, err = decode(shape, data)
		if err == nil {
			reply = map[string]any{"ok": true, "value": v}
		}
	}
	if err != nil {
		reply = map[string]any{"ok": false, "error": err.Error()}
	}
	b, err := json.Marshal(reply)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"ok": false, "error": "marshal: " + err.Error()})
	}
	out.Write(b)
	out.WriteString("\n")
}
