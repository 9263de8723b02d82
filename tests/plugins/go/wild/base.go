// Package wild is the conforming base of the Go test plugins under
// tests/plugins/go: the Go counterpart of tests/plugins/wild/wildbase.py.
//
// Each entire-agent-<name> beside this package is a complete Entire CLI
// external agent plugin, a real Go program (standard library only), that
// changes one thing of this base: a habit of Go's standard library that
// public plugins written in Go carry (docs/host.md "Plugins in the wild").
//
// The base: protocol version 1, JSONL transcripts, sessions under
// $HOME/.<name>/sessions/<repo-key>/<session-id>.jsonl, and, for a plugin
// that declares hooks, an install into $ENTIRE_REPO_ROOT/.<name>/<file>
// that keeps the user's keys (hooks.go). Errors are one line on stderr and
// exit 1; an unknown or missing subcommand exits 2.
package wild

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Event types (protocol "Event Object").
const (
	SessionStart = 1
	TurnStart    = 2
	TurnEnd      = 3
	SessionEnd   = 5
)

// Hook is one hook of the agent: its name, its key in the hooks file and
// the type of the Event it makes.
type Hook struct {
	Name string
	Key  string
	Type int
}

// Command is one subcommand: its arguments in, an error out.
type Command func(p *Plugin, args []string) error

// Plugin is a conforming plugin; a program changes one pattern by setting
// fields or replacing commands.
type Plugin struct {
	Name         string
	Type         string
	Description  string
	Capabilities map[string]bool
	Hooks        []Hook
	// HooksFile is the file under .<name>/ that holds the hooks (hooks.json).
	HooksFile string
	// Prefix is the start of every hook command the plugin installs
	// (default "entire hooks <name> ").
	Prefix func() string
	// Now is the timestamp of an Event (default: UTC, RFC 3339).
	Now func() string
	// GoDefaults parses flags as the flag package does and stops there: a
	// missing flag takes its zero value instead of being refused.
	GoDefaults bool
	// Commands are the subcommands; New fills in the base's.
	Commands map[string]Command
}

// UsageError is an unknown or missing subcommand: exit status 2.
type UsageError struct{ msg string }

func (e UsageError) Error() string { return e.msg }

// optional lists the subcommands that exist only with their capability.
var optional = map[string][]string{
	"hooks":               {"parse-hook", "install-hooks", "uninstall-hooks", "are-hooks-installed"},
	"transcript_analyzer": {"get-transcript-position", "extract-modified-files", "extract-prompts", "extract-summary"},
	"token_calculator":    {"calculate-tokens"},
}

// New is the base plugin named name, with every always-required
// subcommand and the hook lifecycle.
func New(name, agentType, description string) *Plugin {
	p := &Plugin{Name: name, Type: agentType, Description: description, HooksFile: "hooks.json"}
	p.Prefix = func() string { return "entire hooks " + p.Name + " " }
	p.Now = func() string { return time.Now().UTC().Format(time.RFC3339) }
	p.Commands = map[string]Command{
		"info":                  cmdInfo,
		"detect":                cmdDetect,
		"get-session-id":        cmdGetSessionID,
		"get-session-dir":       cmdGetSessionDir,
		"resolve-session-file":  cmdResolveSessionFile,
		"write-session":         cmdWriteSession,
		"read-session":          cmdReadSession,
		"read-transcript":       cmdReadTranscript,
		"chunk-transcript":      cmdChunkTranscript,
		"reassemble-transcript": cmdReassembleTranscript,
		"format-resume-command": cmdFormatResumeCommand,
		"install-hooks":         cmdInstallHooks,
		"uninstall-hooks":       cmdUninstallHooks,
		"are-hooks-installed":   cmdAreHooksInstalled,
		"parse-hook":            cmdParseHook,
	}
	return p
}

// Main runs the plugin on the process's arguments and exits.
func (p *Plugin) Main() {
	err := p.run(os.Args[1:])
	if err == nil {
		os.Exit(0)
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if msg == "" {
		msg = "error"
	}
	fmt.Fprintf(os.Stderr, "entire-agent-%s: %s\n", p.Name, msg)
	var usage UsageError
	if errors.As(err, &usage) {
		os.Exit(2)
	}
	os.Exit(1)
}

func (p *Plugin) run(args []string) error {
	if len(args) == 0 {
		return UsageError{"missing subcommand"}
	}
	command, ok := p.Commands[args[0]]
	for capability, names := range optional {
		for _, name := range names {
			if name == args[0] && !p.Capabilities[capability] {
				ok = false
			}
		}
	}
	if !ok {
		return UsageError{"unknown subcommand: " + args[0]}
	}
	return command(p, args[1:])
}

// Flags are the values of a subcommand's flags.
type Flags struct {
	strings map[string]*string
	bools   map[string]*bool
}

// String is the value of a string flag ("" when absent).
func (f Flags) String(name string) string {
	if v, ok := f.strings[name]; ok {
		return *v
	}
	return ""
}

// Bool is the value of a bool flag.
func (f Flags) Bool(name string) bool {
	if v, ok := f.bools[name]; ok {
		return *v
	}
	return false
}

// Parse parses args with the flag package: values, bools, and the value
// flags that must be given and non-empty (unless GoDefaults).
func (p *Plugin) Parse(args []string, values, bools, required []string) (Flags, error) {
	fs := flag.NewFlagSet(p.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	flags := Flags{strings: map[string]*string{}, bools: map[string]*bool{}}
	for _, name := range values {
		flags.strings[name] = fs.String(name, "", "")
	}
	for _, name := range bools {
		flags.bools[name] = fs.Bool(name, false, "")
	}
	if err := fs.Parse(args); err != nil {
		return flags, err
	}
	if fs.NArg() > 0 && !p.GoDefaults {
		return flags, fmt.Errorf("unexpected argument: %s", fs.Arg(0))
	}
	if p.GoDefaults {
		return flags, nil
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, name := range required {
		if !given[name] {
			return flags, fmt.Errorf("required flag missing: --%s", name)
		}
		if flags.String(name) == "" {
			return flags, fmt.Errorf("flag --%s must not be empty", name)
		}
	}
	return flags, nil
}

// Emit prints one JSON value as the answer, as json.Encoder does.
func Emit(v any) error {
	return json.NewEncoder(os.Stdout).Encode(v)
}

// WriteBytes prints data as it is.
func WriteBytes(data []byte) error {
	_, err := os.Stdout.Write(data)
	return err
}

// ReadStdin is all of stdin.
func ReadStdin() ([]byte, error) {
	return io.ReadAll(os.Stdin)
}

// DecodeObject decodes a JSON object on stdin into v (a pointer to a
// struct), refusing empty input and anything that is not an object.
func DecodeObject(data []byte, v any, what string) error {
	trimmed := strings.TrimSpace(string(data))
	if trimmed == "" {
		return fmt.Errorf("empty %s", what)
	}
	if !strings.HasPrefix(trimmed, "{") {
		return fmt.Errorf("invalid %s: expected a JSON object", what)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("invalid %s: %v", what, err)
	}
	return nil
}

// RepoRoot is $ENTIRE_REPO_ROOT, or the working directory.
func RepoRoot() string {
	root := os.Getenv("ENTIRE_REPO_ROOT")
	if root == "" {
		root, _ = os.Getwd()
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return root
	}
	return abs
}

// HomeDir is $HOME.
func HomeDir() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", errors.New("cannot determine home directory: HOME is not set")
	}
	return filepath.Clean(home), nil
}

var nonAlnum = regexp.MustCompile(`[^A-Za-z0-9]`)

// RepoKey is the repository's path with every other character a dash.
func RepoKey(repo string) string {
	abs, err := filepath.Abs(repo)
	if err != nil {
		abs = repo
	}
	key := strings.Trim(nonAlnum.ReplaceAllString(abs, "-"), "-")
	if key == "" {
		return "root"
	}
	return key
}

// ConfigDir is the plugin's directory in the repository, .<name>.
func (p *Plugin) ConfigDir() string { return "." + p.Name }

// SessionDir is where the plugin keeps the sessions of repo.
func (p *Plugin) SessionDir(repo string) (string, error) {
	home, err := HomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, p.ConfigDir(), "sessions", RepoKey(repo)), nil
}

// CheckSessionRef refuses a reference that could escape its directory.
func CheckSessionRef(ref string) error {
	if ref == "" {
		return errors.New("session_ref is empty")
	}
	if strings.ContainsRune(ref, 0) {
		return errors.New("session_ref contains a NUL byte")
	}
	parts := strings.Split(strings.ReplaceAll(ref, `\`, "/"), "/")
	for _, part := range parts {
		if part == ".." {
			return fmt.Errorf("session_ref must not contain a '..' component: %s", ref)
		}
		if part == "." && filepath.IsAbs(ref) {
			return fmt.Errorf("session_ref must not contain a '.' component: %s", ref)
		}
	}
	return nil
}

// CheckSessionID refuses an id that is not a plain file name.
func CheckSessionID(id string) error {
	if id == "" {
		return errors.New("session id is empty")
	}
	if strings.ContainsAny(id, `/\`) || strings.Contains(id, "..") {
		return fmt.Errorf("invalid session id %q: must not contain '/', '\\' or '..'", id)
	}
	if strings.ContainsRune(id, 0) || filepath.IsAbs(id) {
		return fmt.Errorf("invalid session id %q", id)
	}
	return nil
}

// ReadFile is os.ReadFile with what it read named in the error.
func ReadFile(path, what string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("failed to read %s: %v", what, err)
	}
	return data, nil
}

// AtomicWrite replaces path with data through a file beside it, keeping an
// existing file's mode.
func AtomicWrite(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// ShellQuote quotes s for sh, as Python's shlex.quote does.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}
