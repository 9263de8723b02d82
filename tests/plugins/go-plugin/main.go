// entire-agent-gosmall: a small Entire CLI external agent plugin in Go, the
// core subcommands only (no capabilities declared). A fixture of
// agent-conform's scripts/run-workflow-steps.py, which runs the workflow
// `agent-conform init --ci github` writes for it; standard library only.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

const name = "gosmall"

// failure is an error the plugin reports on stderr, exiting 1.
type failure struct{ msg string }

func (f failure) Error() string { return f.msg }

func fail(format string, args ...any) error { return failure{fmt.Sprintf(format, args...)} }

func main() {
	if len(os.Args) < 2 {
		exit(fail("missing subcommand"))
	}
	commands := map[string]func([]string) error{
		"info":                  info,
		"detect":                detect,
		"get-session-id":        getSessionID,
		"get-session-dir":       getSessionDir,
		"resolve-session-file":  resolveSessionFile,
		"read-session":          readSession,
		"write-session":         writeSession,
		"read-transcript":       readTranscript,
		"chunk-transcript":      chunkTranscript,
		"reassemble-transcript": reassembleTranscript,
		"format-resume-command": formatResumeCommand,
	}
	command, ok := commands[os.Args[1]]
	if !ok {
		exit(fail("unknown subcommand: %s", os.Args[1]))
	}
	exit(command(os.Args[2:]))
}

func exit(err error) {
	if err == nil {
		os.Exit(0)
	}
	fmt.Fprintf(os.Stderr, "entire-agent-%s: %s\n", name, strings.Join(strings.Fields(err.Error()), " "))
	os.Exit(1)
}

// flags reads `--name value` and `--name=value`; every name in required
// must be given, not empty.
func flags(args []string, required ...string) (map[string]string, error) {
	known := map[string]bool{}
	for _, r := range required {
		known[r] = true
	}
	values := map[string]string{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "--") || arg == "--" {
			return nil, fail("unexpected argument: %s", arg)
		}
		key, value, inline := strings.Cut(arg[2:], "=")
		if !known[key] {
			return nil, fail("unknown flag: --%s", key)
		}
		if !inline {
			if i+1 >= len(args) {
				return nil, fail("flag needs a value: --%s", key)
			}
			i++
			value = args[i]
		}
		values[key] = value
	}
	for _, r := range required {
		if values[r] == "" {
			return nil, fail("required flag missing: --%s", r)
		}
	}
	return values, nil
}

func printJSON(v any) error {
	out, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(out, '\n'))
	return err
}

func readStdinObject(what string, into any) error {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		return fail("reading %s: %v", what, err)
	}
	if strings.TrimSpace(string(data)) == "" {
		return fail("empty %s", what)
	}
	if err := json.Unmarshal(data, into); err != nil {
		return fail("invalid %s: %v", what, err)
	}
	return nil
}

func repoRoot() string {
	if root := os.Getenv("ENTIRE_REPO_ROOT"); root != "" {
		return root
	}
	wd, _ := os.Getwd()
	return wd
}

func info(args []string) error {
	if _, err := flags(args); err != nil {
		return err
	}
	return printJSON(map[string]any{
		"protocol_version": 1,
		"name":             name,
		"type":             "GoSmall",
		"description":      "GoSmall - a small Go plugin, a fixture of agent-conform",
		"is_preview":       true,
		"protected_dirs":   []string{"." + name},
		"hook_names":       []string{},
		"capabilities":     map[string]bool{},
	})
}

func detect(args []string) error {
	if _, err := flags(args); err != nil {
		return err
	}
	st, err := os.Stat(filepath.Join(repoRoot(), "."+name))
	return printJSON(map[string]bool{"present": err == nil && st.IsDir()})
}

func getSessionID(args []string) error {
	if _, err := flags(args); err != nil {
		return err
	}
	var input struct {
		SessionID string `json:"session_id"`
	}
	if err := readStdinObject("hook input", &input); err != nil {
		return err
	}
	if input.SessionID == "" {
		return fail("hook input has no session_id")
	}
	return printJSON(map[string]string{"session_id": input.SessionID})
}

var notKey = regexp.MustCompile(`[^A-Za-z0-9]`)

func getSessionDir(args []string) error {
	f, err := flags(args, "repo-path")
	if err != nil {
		return err
	}
	home := os.Getenv("HOME")
	if home == "" {
		return fail("HOME is not set")
	}
	abs, err := filepath.Abs(f["repo-path"])
	if err != nil {
		return err
	}
	key := strings.Trim(notKey.ReplaceAllString(abs, "-"), "-")
	if key == "" {
		key = "root"
	}
	return printJSON(map[string]string{"session_dir": filepath.Join(home, "."+name, "sessions", key)})
}

func checkID(id string) error {
	if id == "" || strings.ContainsAny(id, "/\\\x00") || strings.Contains(id, "..") {
		return fail("invalid session id %q", id)
	}
	return nil
}

// checkRef refuses a reference that could escape its directory.
func checkRef(ref string) error {
	if ref == "" {
		return fail("session_ref is empty")
	}
	parts := strings.Split(strings.ReplaceAll(ref, "\\", "/"), "/")
	for _, p := range parts {
		if p == ".." || (p == "." && filepath.IsAbs(ref)) || strings.Contains(p, "\x00") {
			return fail("session_ref must not contain a %q component: %s", p, ref)
		}
	}
	return nil
}

func resolveSessionFile(args []string) error {
	f, err := flags(args, "session-dir", "session-id")
	if err != nil {
		return err
	}
	if err := checkID(f["session-id"]); err != nil {
		return err
	}
	return printJSON(map[string]string{
		"session_file": filepath.Join(f["session-dir"], f["session-id"]+".jsonl"),
	})
}

// session is the host's AgentSession; NativeData is base64 in JSON.
type session struct {
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

func readSession(args []string) error {
	if _, err := flags(args); err != nil {
		return err
	}
	var input struct {
		SessionID  string `json:"session_id"`
		SessionRef string `json:"session_ref"`
	}
	if err := readStdinObject("hook input", &input); err != nil {
		return err
	}
	if err := checkRef(input.SessionRef); err != nil {
		return err
	}
	data, err := os.ReadFile(input.SessionRef)
	if err != nil {
		return fail("failed to read session: %v", err)
	}
	return printJSON(session{
		SessionID: input.SessionID, AgentName: name, RepoPath: repoRoot(),
		SessionRef: input.SessionRef, NativeData: data,
		ModifiedFiles: []string{}, NewFiles: []string{}, DeletedFiles: []string{},
	})
}

func writeSession(args []string) error {
	if _, err := flags(args); err != nil {
		return err
	}
	var s session
	if err := readStdinObject("agent session", &s); err != nil {
		return err
	}
	if err := checkRef(s.SessionRef); err != nil {
		return err
	}
	if s.NativeData == nil {
		return fail("agent session has no native_data to write")
	}
	if err := os.MkdirAll(filepath.Dir(s.SessionRef), 0o755); err != nil {
		return fail("failed to write session: %v", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.SessionRef), ".tmp-")
	if err != nil {
		return fail("failed to write session: %v", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(s.NativeData); err != nil {
		tmp.Close()
		return fail("failed to write session: %v", err)
	}
	if err := errors.Join(tmp.Chmod(0o644), tmp.Close()); err != nil {
		return fail("failed to write session: %v", err)
	}
	if err := os.Rename(tmp.Name(), s.SessionRef); err != nil {
		return fail("failed to write session: %v", err)
	}
	return nil
}

func readTranscript(args []string) error {
	f, err := flags(args, "session-ref")
	if err != nil {
		return err
	}
	if err := checkRef(f["session-ref"]); err != nil {
		return err
	}
	data, err := os.ReadFile(f["session-ref"])
	if err != nil {
		return fail("failed to read transcript: %v", err)
	}
	_, err = os.Stdout.Write(data)
	return err
}

// chunk splits JSONL at line ends, as the host does: a chunk closed because
// the next line does not fit drops its final newline, which reassembly
// (joining on "\n") puts back.
func chunk(content []byte, maxSize int) ([][]byte, error) {
	chunks := [][]byte{}
	if len(content) == 0 {
		return chunks, nil
	}
	var lines [][]byte
	for len(content) > 0 {
		end := len(content)
		if i := strings.IndexByte(string(content), '\n'); i >= 0 {
			end = i + 1
		}
		lines = append(lines, content[:end])
		content = content[end:]
	}
	var current []byte
	for n, line := range lines {
		if len(line) > maxSize {
			return nil, fail("JSONL line %d is %d bytes, larger than the maximum chunk size %d", n+1, len(line), maxSize)
		}
		if len(current) > 0 && len(current)+len(line) > maxSize {
			chunks = append(chunks, current[:len(current)-1])
			current = nil
		}
		current = append(current, line...)
	}
	if len(current) > 0 {
		chunks = append(chunks, current)
	}
	return chunks, nil
}

func chunkTranscript(args []string) error {
	f, err := flags(args, "max-size")
	if err != nil {
		return err
	}
	maxSize, err := strconv.Atoi(f["max-size"])
	if err != nil || maxSize <= 0 {
		return fail("--max-size must be an integer greater than 0, got %q", f["max-size"])
	}
	content, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	chunks, err := chunk(content, maxSize)
	if err != nil {
		return err
	}
	return printJSON(map[string][][]byte{"chunks": chunks})
}

func reassembleTranscript(args []string) error {
	if _, err := flags(args); err != nil {
		return err
	}
	var input struct {
		Chunks *[][]byte `json:"chunks"`
	}
	if err := readStdinObject("chunks input", &input); err != nil {
		return err
	}
	if input.Chunks == nil {
		return fail("invalid chunks input: missing \"chunks\"")
	}
	_, err := os.Stdout.Write([]byte(strings.Join(func() []string {
		parts := make([]string, len(*input.Chunks))
		for i, c := range *input.Chunks {
			parts[i] = string(c)
		}
		return parts
	}(), "\n")))
	return err
}

func formatResumeCommand(args []string) error {
	f, err := flags(args, "session-id")
	if err != nil {
		return err
	}
	id := f["session-id"]
	if strings.ContainsAny(id, " '\"\\$`!*?;&|<>()") {
		id = "'" + strings.ReplaceAll(id, "'", `'\''`) + "'"
	}
	return printJSON(map[string]string{"command": name + " resume " + id})
}
