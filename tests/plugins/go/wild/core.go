package wild

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Info is the answer of `info`.
type Info struct {
	ProtocolVersion int             `json:"protocol_version"`
	Name            string          `json:"name"`
	Type            string          `json:"type"`
	Description     string          `json:"description"`
	IsPreview       bool            `json:"is_preview"`
	ProtectedDirs   []string        `json:"protected_dirs"`
	HookNames       []string        `json:"hook_names"`
	Capabilities    map[string]bool `json:"capabilities"`
}

// Info is what the plugin's `info` answers.
func (p *Plugin) Info() Info {
	names := []string{}
	if p.Capabilities["hooks"] {
		for _, h := range p.Hooks {
			names = append(names, h.Name)
		}
	}
	capabilities := map[string]bool{}
	for k, v := range p.Capabilities {
		capabilities[k] = v
	}
	return Info{
		ProtocolVersion: 1, Name: p.Name, Type: p.Type, Description: p.Description,
		IsPreview: true, ProtectedDirs: []string{p.ConfigDir()}, HookNames: names,
		Capabilities: capabilities,
	}
}

func cmdInfo(p *Plugin, args []string) error {
	if _, err := p.Parse(args, nil, nil, nil); err != nil {
		return err
	}
	return Emit(p.Info())
}

func cmdDetect(p *Plugin, args []string) error {
	if _, err := p.Parse(args, nil, nil, nil); err != nil {
		return err
	}
	info, err := os.Stat(filepath.Join(RepoRoot(), p.ConfigDir()))
	return Emit(map[string]bool{"present": err == nil && info.IsDir()})
}

// HookInput is what the host sends to get-session-id and read-session.
type HookInput struct {
	SessionID  string `json:"session_id"`
	SessionRef string `json:"session_ref"`
}

func cmdGetSessionID(p *Plugin, args []string) error {
	if _, err := p.Parse(args, nil, nil, nil); err != nil {
		return err
	}
	data, err := ReadStdin()
	if err != nil {
		return err
	}
	var in HookInput
	if err := DecodeObject(data, &in, "hook input"); err != nil {
		return err
	}
	if in.SessionID == "" {
		return errors.New("hook input has no session_id")
	}
	return Emit(map[string]string{"session_id": in.SessionID})
}

func cmdGetSessionDir(p *Plugin, args []string) error {
	flags, err := p.Parse(args, []string{"repo-path"}, nil, []string{"repo-path"})
	if err != nil {
		return err
	}
	dir, err := p.SessionDir(flags.String("repo-path"))
	if err != nil {
		return err
	}
	return Emit(map[string]string{"session_dir": dir})
}

func cmdResolveSessionFile(p *Plugin, args []string) error {
	names := []string{"session-dir", "session-id"}
	flags, err := p.Parse(args, names, nil, names)
	if err != nil {
		return err
	}
	id := flags.String("session-id")
	if err := CheckSessionID(id); err != nil {
		return err
	}
	file := filepath.Join(flags.String("session-dir"), id+".jsonl")
	return Emit(map[string]string{"session_file": file})
}

// AgentSession is the host's session, written and read back.
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

func cmdWriteSession(p *Plugin, args []string) error {
	if _, err := p.Parse(args, nil, nil, nil); err != nil {
		return err
	}
	data, err := ReadStdin()
	if err != nil {
		return err
	}
	var session AgentSession
	if err := DecodeObject(data, &session, "agent session"); err != nil {
		return err
	}
	if session.SessionRef == "" {
		return errors.New("agent session has no session_ref")
	}
	if err := CheckSessionRef(session.SessionRef); err != nil {
		return err
	}
	if session.NativeData == nil {
		return errors.New("agent session has no native_data to write")
	}
	return WriteSessionFile(session.SessionRef, session.NativeData)
}

// WriteSessionFile writes a session's bytes, its directory created.
func WriteSessionFile(ref string, data []byte) error {
	abs, err := filepath.Abs(ref)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return fmt.Errorf("failed to write session %s: %v", ref, err)
	}
	if err := AtomicWrite(abs, data); err != nil {
		return fmt.Errorf("failed to write session %s: %v", ref, err)
	}
	return nil
}

func cmdReadSession(p *Plugin, args []string) error {
	if _, err := p.Parse(args, nil, nil, nil); err != nil {
		return err
	}
	data, err := ReadStdin()
	if err != nil {
		return err
	}
	var in HookInput
	if err := DecodeObject(data, &in, "hook input"); err != nil {
		return err
	}
	if in.SessionRef == "" {
		return errors.New("hook input has no session_ref")
	}
	if err := CheckSessionRef(in.SessionRef); err != nil {
		return err
	}
	native, err := ReadFile(in.SessionRef, "session")
	if err != nil {
		return err
	}
	return Emit(AgentSession{
		SessionID: in.SessionID, AgentName: p.Name, RepoPath: RepoRoot(),
		SessionRef: in.SessionRef, NativeData: native,
		ModifiedFiles: []string{}, NewFiles: []string{}, DeletedFiles: []string{},
	})
}

func cmdReadTranscript(p *Plugin, args []string) error {
	flags, err := p.Parse(args, []string{"session-ref"}, nil, []string{"session-ref"})
	if err != nil {
		return err
	}
	ref := flags.String("session-ref")
	if err := CheckSessionRef(ref); err != nil {
		return err
	}
	data, err := ReadFile(ref, "transcript")
	if err != nil {
		return err
	}
	return WriteBytes(data)
}

func cmdChunkTranscript(p *Plugin, args []string) error {
	flags, err := p.Parse(args, []string{"max-size"}, nil, []string{"max-size"})
	if err != nil {
		return err
	}
	maxSize, err := PositiveInt(flags.String("max-size"), "max-size")
	if err != nil {
		return err
	}
	data, err := ReadStdin()
	if err != nil {
		return err
	}
	chunks, err := ChunkJSONL(data, maxSize)
	if err != nil {
		return err
	}
	return Emit(map[string][][]byte{"chunks": chunks})
}

// PositiveInt is a flag's decimal digits, greater than 0.
func PositiveInt(raw, flag string) (int, error) {
	n, err := Digits(raw, flag)
	if err == nil && n <= 0 {
		err = fmt.Errorf("--%s must be an integer greater than 0, got %q", flag, raw)
	}
	return n, err
}

// Digits is a flag's decimal digits (0 for none given).
func Digits(raw, flag string) (int, error) {
	if raw == "" {
		return 0, nil
	}
	n := 0
	for _, c := range raw {
		if c < '0' || c > '9' || n > 1<<40 {
			return 0, fmt.Errorf("--%s must be a non-negative integer, got %q", flag, raw)
		}
		n = n*10 + int(c-'0')
	}
	return n, nil
}

// ChunkJSONL splits a JSONL transcript at line ends into chunks of at most
// maxSize bytes, each line counted with its newline; joined with "\n" the
// chunks are the input, byte for byte. A longer line is an error.
func ChunkJSONL(content []byte, maxSize int) ([][]byte, error) {
	chunks := [][]byte{}
	if len(content) == 0 {
		return chunks, nil
	}
	pieces := bytes.Split(content, []byte("\n"))
	var lines [][]byte
	for _, piece := range pieces[:len(pieces)-1] {
		lines = append(lines, append(append([]byte{}, piece...), '\n'))
	}
	if last := pieces[len(pieces)-1]; len(last) > 0 {
		lines = append(lines, last)
	}
	var current []byte
	for i, line := range lines {
		if len(line) > maxSize {
			return nil, fmt.Errorf("JSONL line %d is %d bytes, larger than the maximum chunk size %d; "+
				"cannot split a single JSON object", i+1, len(line), maxSize)
		}
		if len(current) > 0 && len(current)+len(line) > maxSize {
			chunks = append(chunks, bytes.TrimSuffix(current, []byte("\n")))
			current = nil
		}
		current = append(current, line...)
	}
	if len(current) > 0 {
		chunks = append(chunks, current)
	}
	return chunks, nil
}

// HostChunkJSONL is the host's own default JSONL chunker (docs/host.md
// "Chunking"): every piece of the split at "\n" measured with a "\n"
// appended, the last one too; every chunk drops its final "\n".
func HostChunkJSONL(content []byte, maxSize int) ([][]byte, error) {
	var chunks [][]byte
	if len(content) == 0 {
		return chunks, nil
	}
	var current []byte
	for i, piece := range bytes.Split(content, []byte("\n")) {
		line := append(append([]byte{}, piece...), '\n')
		if len(line) > maxSize {
			return nil, fmt.Errorf("JSONL line %d exceeds maximum chunk size (%d bytes > %d bytes); "+
				"cannot split a single JSON object", i+1, len(line), maxSize)
		}
		if len(current) > 0 && len(current)+len(line) > maxSize {
			chunks = append(chunks, current[:len(current)-1])
			current = nil
		}
		current = append(current, line...)
	}
	if len(current) > 0 {
		chunks = append(chunks, current[:len(current)-1])
	}
	return chunks, nil
}

func cmdReassembleTranscript(p *Plugin, args []string) error {
	if _, err := p.Parse(args, nil, nil, nil); err != nil {
		return err
	}
	data, err := ReadStdin()
	if err != nil {
		return err
	}
	var in struct {
		Chunks *[][]byte `json:"chunks"`
	}
	if err := DecodeObject(data, &in, "chunks input"); err != nil {
		return err
	}
	if in.Chunks == nil {
		return errors.New(`invalid chunks input: missing "chunks"`)
	}
	return WriteBytes(bytes.Join(*in.Chunks, []byte("\n")))
}

func cmdFormatResumeCommand(p *Plugin, args []string) error {
	flags, err := p.Parse(args, []string{"session-id"}, nil, []string{"session-id"})
	if err != nil {
		return err
	}
	command := p.Name + " --resume " + ShellQuote(flags.String("session-id"))
	return Emit(map[string]string{"command": command})
}
