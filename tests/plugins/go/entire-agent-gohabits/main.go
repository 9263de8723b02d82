// Command entire-agent-gohabits is a plugin written in Go on the guide's
// skeleton, as public plugins such as pi are (docs/host.md "Plugins in the
// wild", "Go decoding habits"). It does what Go does without being asked:
//
//   - input is decoded with encoding/json into structs: unknown fields are
//     ignored, names match case-insensitively, a missing field or null is
//     the zero value (so {} decodes), a wrongly typed field or trailing data
//     is an error, []byte fields are standard padded base64;
//   - reassemble-transcript with {} (no chunks) prints nothing and exits 0;
//   - every empty list is a nil slice, printed as null (the chunks of an
//     empty transcript, files, prompts, the file lists of read-session);
//   - flags are parsed by the flag package, and a missing flag takes its
//     default ("" or 0) instead of being refused;
//   - parse-hook with {} gives an Event with an empty session id (as pi
//     does); an empty payload is the guide's "empty hook input" error;
//   - a missing transcript is os.ReadFile's error;
//   - chunking is the host's own agent.ChunkJSONL, reassembly its
//     ReassembleJSONL;
//   - output is json.Encoder's: compact, HTML characters escaped as \u003c,
//     a final newline; timestamps are time.Time, RFC 3339 with nanoseconds.
//
// Capabilities: hooks (pi's hook names session_start, before_agent_start,
// agent_end, session_shutdown; snake_case payload fields) and
// transcript_analyzer (Claude Code shaped JSONL; positions are line counts,
// offsets skip lines).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"goplugins/wild"
)

func main() {
	p := wild.New("gohabits", "GoHabits", "GoHabits - fictional agent whose plugin decodes like Go")
	p.Capabilities = map[string]bool{"hooks": true, "transcript_analyzer": true}
	p.Hooks = []wild.Hook{
		{Name: "session_start", Key: "session_start", Type: wild.SessionStart},
		{Name: "before_agent_start", Key: "before_agent_start", Type: wild.TurnStart},
		{Name: "agent_end", Key: "agent_end", Type: wild.TurnEnd},
		{Name: "session_shutdown", Key: "session_shutdown", Type: wild.SessionEnd},
	}
	p.HooksFile = "settings.json"
	p.GoDefaults = true
	for name, command := range map[string]func([]string) error{
		"get-session-id":          getSessionID,
		"get-session-dir":         func(args []string) error { return getSessionDir(p, args) },
		"resolve-session-file":    resolveSessionFile,
		"write-session":           writeSession,
		"read-session":            readSession,
		"read-transcript":         readTranscript,
		"chunk-transcript":        chunkTranscript,
		"reassemble-transcript":   reassembleTranscript,
		"format-resume-command":   formatResumeCommand,
		"parse-hook":              func(args []string) error { return parseHook(p, args) },
		"get-transcript-position": position,
		"extract-modified-files":  modifiedFiles,
		"extract-prompts":         prompts,
		"extract-summary":         summary,
	} {
		command := command
		p.Commands[name] = func(_ *wild.Plugin, args []string) error { return command(args) }
	}
	p.Main()
}

// flags is a subcommand's flag.FlagSet, every flag at its zero default.
type flags struct {
	set    *flag.FlagSet
	values map[string]*string
	ints   map[string]*int
}

func newFlags(strs []string, ints []string) *flags {
	f := &flags{set: flag.NewFlagSet("gohabits", flag.ContinueOnError),
		values: map[string]*string{}, ints: map[string]*int{}}
	f.set.SetOutput(io.Discard)
	for _, name := range strs {
		f.values[name] = f.set.String(name, "", "")
	}
	for _, name := range ints {
		f.ints[name] = f.set.Int(name, 0, "")
	}
	return f
}

func parse(args []string, strs []string, ints ...string) (*flags, error) {
	f := newFlags(strs, ints)
	return f, f.set.Parse(args)
}

func (f *flags) str(name string) string { return *f.values[name] }
func (f *flags) int(name string) int    { return *f.ints[name] }

// decode is json.Unmarshal of stdin into v.
func decode(v any, what string) error {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func emit(v any) error { return json.NewEncoder(os.Stdout).Encode(v) }

func getSessionID(args []string) error {
	if _, err := parse(args, nil); err != nil {
		return err
	}
	var in struct {
		SessionID string `json:"session_id"`
	}
	if err := decode(&in, "hook input"); err != nil {
		return err
	}
	return emit(map[string]string{"session_id": in.SessionID})
}

func getSessionDir(p *wild.Plugin, args []string) error {
	f, err := parse(args, []string{"repo-path"})
	if err != nil {
		return err
	}
	repo := f.str("repo-path")
	if repo == "" {
		repo = wild.RepoRoot()
	}
	dir, err := p.SessionDir(repo)
	if err != nil {
		return err
	}
	return emit(map[string]string{"session_dir": dir})
}

func resolveSessionFile(args []string) error {
	f, err := parse(args, []string{"session-dir", "session-id"})
	if err != nil {
		return err
	}
	id := f.str("session-id")
	if id != "" {
		if err := wild.CheckSessionID(id); err != nil {
			return err
		}
	}
	return emit(map[string]string{"session_file": filepath.Join(f.str("session-dir"), id+".jsonl")})
}

// agentSession is the host's AgentSession, as the guide's skeleton has it.
type agentSession struct {
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

func writeSession(args []string) error {
	if _, err := parse(args, nil); err != nil {
		return err
	}
	var session agentSession
	if err := decode(&session, "agent session"); err != nil {
		return err
	}
	if session.SessionRef == "" {
		return errors.New("session_ref is required")
	}
	if err := wild.CheckSessionRef(session.SessionRef); err != nil {
		return err
	}
	return wild.WriteSessionFile(session.SessionRef, session.NativeData)
}

func readSession(args []string) error {
	if _, err := parse(args, nil); err != nil {
		return err
	}
	var in struct {
		SessionID  string `json:"session_id"`
		SessionRef string `json:"session_ref"`
	}
	if err := decode(&in, "hook input"); err != nil {
		return err
	}
	if in.SessionRef == "" {
		return errors.New("session_ref is required")
	}
	if err := wild.CheckSessionRef(in.SessionRef); err != nil {
		return err
	}
	data, err := os.ReadFile(in.SessionRef)
	if err != nil {
		return err
	}
	return emit(agentSession{SessionID: in.SessionID, AgentName: "gohabits",
		RepoPath: wild.RepoRoot(), SessionRef: in.SessionRef, NativeData: data})
}

// readFile is os.ReadFile of a reference that cannot escape its directory.
func readFile(path string) ([]byte, error) {
	if path != "" {
		if err := wild.CheckSessionRef(path); err != nil {
			return nil, err
		}
	}
	return os.ReadFile(path)
}

func readTranscript(args []string) error {
	f, err := parse(args, []string{"session-ref"})
	if err != nil {
		return err
	}
	data, err := readFile(f.str("session-ref"))
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(data)
	return err
}

func chunkTranscript(args []string) error {
	f, err := parse(args, nil, "max-size")
	if err != nil {
		return err
	}
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	chunks, err := wild.HostChunkJSONL(data, f.int("max-size"))
	if err != nil {
		return err
	}
	return emit(struct {
		Chunks [][]byte `json:"chunks"`
	}{chunks})
}

func reassembleTranscript(args []string) error {
	if _, err := parse(args, nil); err != nil {
		return err
	}
	var in struct {
		Chunks [][]byte `json:"chunks"`
	}
	if err := decode(&in, "chunks input"); err != nil {
		return err
	}
	_, err := os.Stdout.Write(bytes.Join(in.Chunks, []byte("\n")))
	return err
}

func formatResumeCommand(args []string) error {
	f, err := parse(args, []string{"session-id"})
	if err != nil {
		return err
	}
	command := "gohabits --resume "
	if id := f.str("session-id"); id != "" {
		command += wild.ShellQuote(id)
	}
	return emit(map[string]string{"command": command})
}

// event is the Event of the guide's skeleton: the timestamp a time.Time.
type event struct {
	Type       int       `json:"type"`
	SessionID  string    `json:"session_id"`
	SessionRef string    `json:"session_ref,omitempty"`
	Prompt     string    `json:"prompt,omitempty"`
	Timestamp  time.Time `json:"timestamp"`
}

func parseHook(p *wild.Plugin, args []string) error {
	f, err := parse(args, []string{"hook"})
	if err != nil {
		return err
	}
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	eventType := p.HookType(f.str("hook"))
	if eventType == 0 {
		return emit(nil)
	}
	if len(data) == 0 {
		return errors.New("empty hook input")
	}
	var raw struct {
		SessionID      string `json:"session_id"`
		TranscriptPath string `json:"transcript_path"`
		Prompt         string `json:"prompt"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("failed to parse hook input: %w", err)
	}
	e := event{Type: eventType, SessionID: raw.SessionID, Timestamp: time.Now()}
	if eventType == wild.TurnStart || eventType == wild.TurnEnd {
		e.SessionRef = raw.TranscriptPath
	}
	if eventType == wild.TurnStart {
		e.Prompt = raw.Prompt
	}
	return emit(e)
}

// lineCount is the lines of a JSONL transcript; a final line without a
// newline counts.
func lineCount(data []byte) int {
	if len(data) == 0 {
		return 0
	}
	n := bytes.Count(data, []byte("\n"))
	if !bytes.HasSuffix(data, []byte("\n")) {
		n++
	}
	return n
}

// entries is the JSON objects of the lines after the first offset lines.
func entries(data []byte, offset int) []wild.Entry {
	lines := bytes.Split(data, []byte("\n"))
	if offset < 0 {
		offset = 0
	}
	if offset > len(lines) {
		offset = len(lines)
	}
	var out []wild.Entry
	for _, line := range lines[offset:] {
		if entry, ok := wild.ParseEntry(line); ok {
			out = append(out, entry)
		}
	}
	return out
}

// nilIfEmpty is a nil slice for no items: what a Go plugin that appends to
// a `var files []string` prints.
func nilIfEmpty(list []string) []string {
	if len(list) == 0 {
		return nil
	}
	return list
}

func position(args []string) error {
	f, err := parse(args, []string{"path"})
	if err != nil {
		return err
	}
	data, err := readFile(f.str("path"))
	if err != nil {
		return err
	}
	return emit(map[string]int{"position": lineCount(data)})
}

func modifiedFiles(args []string) error {
	f, err := parse(args, []string{"path"}, "offset")
	if err != nil {
		return err
	}
	data, err := readFile(f.str("path"))
	if err != nil {
		return err
	}
	return emit(struct {
		Files           []string `json:"files"`
		CurrentPosition int      `json:"current_position"`
	}{nilIfEmpty(wild.FilesOf(entries(data, f.int("offset")))), lineCount(data)})
}

func prompts(args []string) error {
	f, err := parse(args, []string{"session-ref"}, "offset")
	if err != nil {
		return err
	}
	data, err := readFile(f.str("session-ref"))
	if err != nil {
		return err
	}
	return emit(map[string][]string{"prompts": nilIfEmpty(wild.PromptsOf(entries(data, f.int("offset"))))})
}

func summary(args []string) error {
	f, err := parse(args, []string{"session-ref"})
	if err != nil {
		return err
	}
	data, err := readFile(f.str("session-ref"))
	if err != nil {
		return err
	}
	text := wild.SummaryOf(entries(data, 0))
	return emit(struct {
		Summary    string `json:"summary"`
		HasSummary bool   `json:"has_summary"`
	}{text, text != ""})
}
