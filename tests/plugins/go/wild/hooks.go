package wild

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The hooks file: {"hooks": {<key>: [{"command": ...}, ...]}, ...} with the
// user's keys kept (decoded with UseNumber, so that numbers keep their
// spelling) and, while the plugin's hooks are there, a record of what the
// install created under "_entire_<name>", so that uninstall gives the user
// back their file.

// StateKey is the top-level key of the install record.
func (p *Plugin) StateKey() string {
	return "_entire_" + strings.ReplaceAll(p.Name, "-", "_")
}

// HooksPath is the hooks file in the repository.
func (p *Plugin) HooksPath() string {
	return filepath.Join(RepoRoot(), p.ConfigDir(), p.HooksFile)
}

// loadHooks is the parsed hooks file, or nil when it does not exist.
func (p *Plugin) loadHooks(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read hooks file: %v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}, nil
	}
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	var config map[string]any
	if err := decoder.Decode(&config); err != nil || config == nil {
		return nil, fmt.Errorf("%s must contain a JSON object (%v); fix or remove it by hand", path, err)
	}
	if decoder.More() {
		return nil, fmt.Errorf("%s is not valid JSON (data after the object); fix or remove it by hand", path)
	}
	if hooks, ok := config["hooks"]; ok && hooks != nil {
		table, ok := hooks.(map[string]any)
		if !ok {
			return nil, fmt.Errorf(`%s: "hooks" must be an object; fix it by hand`, path)
		}
		for _, h := range p.Hooks {
			if list, ok := table[h.Key]; ok && list != nil {
				if _, ok := list.([]any); !ok {
					return nil, fmt.Errorf(`%s: "hooks.%s" must be an array; fix it by hand`, path, h.Key)
				}
			}
		}
	}
	return config, nil
}

func dumpConfig(config map[string]any) []byte {
	var out bytes.Buffer
	encoder := json.NewEncoder(&out)
	encoder.SetEscapeHTML(false)
	encoder.SetIndent("", "  ")
	_ = encoder.Encode(config)
	return out.Bytes()
}

func (p *Plugin) isOwn(entry any) bool {
	m, ok := entry.(map[string]any)
	if !ok {
		return false
	}
	command, ok := m["command"].(string)
	return ok && strings.HasPrefix(command, p.Prefix())
}

func cmdInstallHooks(p *Plugin, args []string) error {
	flags, err := p.Parse(args, nil, []string{"local-dev", "force"}, nil)
	if err != nil {
		return err
	}
	// --local-dev is accepted and ignored: hooks call the installed entire.
	configDir := filepath.Join(RepoRoot(), p.ConfigDir())
	path := p.HooksPath()
	config, err := p.loadHooks(path)
	if err != nil {
		return err
	}
	info, statErr := os.Stat(configDir)
	createdDir := statErr != nil || !info.IsDir()
	var original []byte
	var state map[string]any
	if config == nil {
		config = map[string]any{}
		state = map[string]any{"created_file": true, "created_dir": createdDir,
			"created_hooks": true, "created_lists": []any{}}
	} else {
		original = dumpConfig(config)
		state, _ = config[p.StateKey()].(map[string]any)
		if state == nil {
			_, had := config["hooks"]
			state = map[string]any{"created_file": false, "created_dir": false,
				"created_hooks": !had, "created_lists": []any{}}
		}
	}
	if config["hooks"] == nil {
		config["hooks"] = map[string]any{}
	}
	hooks := config["hooks"].(map[string]any)
	var created []any
	if list, ok := state["created_lists"].([]any); ok {
		for _, k := range list {
			if s, ok := k.(string); ok {
				created = append(created, s)
			}
		}
	}
	installed := 0
	for _, h := range p.Hooks {
		if hooks[h.Key] == nil {
			hooks[h.Key] = []any{}
			if !contains(created, h.Key) {
				created = append(created, h.Key)
			}
		}
		entries := hooks[h.Key].([]any)
		if flags.Bool("force") {
			kept := []any{}
			for _, e := range entries {
				if !p.isOwn(e) {
					kept = append(kept, e)
				}
			}
			entries = kept
		}
		command := p.Prefix() + h.Name
		found := false
		for _, e := range entries {
			if m, ok := e.(map[string]any); ok && m["command"] == command {
				found = true
			}
		}
		if !found {
			entries = append(entries, map[string]any{"command": command})
			installed++
		}
		hooks[h.Key] = entries
	}
	if created == nil {
		created = []any{}
	}
	state["created_lists"] = created
	if state["created_file"] == true || state["created_hooks"] == true || len(created) > 0 {
		config[p.StateKey()] = state
	}
	if updated := dumpConfig(config); !bytes.Equal(updated, original) {
		if err := os.MkdirAll(configDir, 0o755); err != nil {
			return fmt.Errorf("failed to write %s: %v", path, err)
		}
		if err := AtomicWrite(path, updated); err != nil {
			return fmt.Errorf("failed to write %s: %v", path, err)
		}
	}
	return Emit(map[string]int{"hooks_installed": installed})
}

func contains(list []any, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func cmdUninstallHooks(p *Plugin, args []string) error {
	if _, err := p.Parse(args, nil, nil, nil); err != nil {
		return err
	}
	configDir := filepath.Join(RepoRoot(), p.ConfigDir())
	path := p.HooksPath()
	config, err := p.loadHooks(path)
	if err != nil || config == nil {
		return err
	}
	_, changed := config[p.StateKey()]
	state, _ := config[p.StateKey()].(map[string]any)
	delete(config, p.StateKey())
	if state == nil {
		state = map[string]any{}
	}
	created, _ := state["created_lists"].([]any)
	if hooks, ok := config["hooks"].(map[string]any); ok {
		for key, value := range hooks {
			entries, ok := value.([]any)
			if !ok {
				continue
			}
			kept := []any{}
			for _, e := range entries {
				if !p.isOwn(e) {
					kept = append(kept, e)
				}
			}
			if len(kept) != len(entries) {
				hooks[key] = kept
				changed = true
			}
			if len(kept) == 0 && contains(created, key) {
				delete(hooks, key)
				changed = true
			}
		}
		if len(hooks) == 0 && state["created_hooks"] == true {
			delete(config, "hooks")
			changed = true
		}
	}
	if !changed {
		return nil // nothing of ours in the file: leave it byte for byte
	}
	if state["created_file"] == true && len(config) == 0 {
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("failed to update %s: %v; remove the %s entries by hand", path, err, p.Name)
		}
		if state["created_dir"] == true {
			_ = os.Remove(configDir) // only succeeds when empty
		}
		return nil
	}
	if err := AtomicWrite(path, dumpConfig(config)); err != nil {
		return fmt.Errorf("failed to update %s: %v; remove the %s entries by hand", path, err, p.Name)
	}
	return nil
}

func cmdAreHooksInstalled(p *Plugin, args []string) error {
	if _, err := p.Parse(args, nil, nil, nil); err != nil {
		return err
	}
	config, err := p.loadHooks(p.HooksPath())
	if err != nil {
		return err
	}
	installed := false
	if hooks, ok := config["hooks"].(map[string]any); ok {
		for _, value := range hooks {
			entries, _ := value.([]any)
			for _, e := range entries {
				if p.isOwn(e) {
					installed = true
				}
			}
		}
	}
	return Emit(map[string]bool{"installed": installed})
}

// Event is what parse-hook answers.
type Event struct {
	Type       int    `json:"type"`
	SessionID  string `json:"session_id"`
	SessionRef string `json:"session_ref,omitempty"`
	Prompt     string `json:"prompt,omitempty"`
	Timestamp  string `json:"timestamp,omitempty"`
}

// Payload is the guide's Claude Code shaped hook payload.
type Payload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Prompt         string `json:"prompt"`
}

// HookType is the Event type of a hook name of the plugin's (0: none).
func (p *Plugin) HookType(name string) int {
	for _, h := range p.Hooks {
		if h.Name == name {
			return h.Type
		}
	}
	return 0
}

// ReadPayload is parse-hook's flag and payload: the Event type (0 for a
// hook that is not the plugin's, after stdin was read) and the payload.
func (p *Plugin) ReadPayload(args []string) (int, Payload, error) {
	var payload Payload
	flags, err := p.Parse(args, []string{"hook"}, nil, []string{"hook"})
	if err != nil {
		return 0, payload, err
	}
	data, err := ReadStdin()
	if err != nil {
		return 0, payload, err
	}
	eventType := p.HookType(flags.String("hook"))
	if eventType == 0 {
		return 0, payload, nil
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return 0, payload, errors.New("empty hook input")
	}
	return eventType, payload, DecodeObject(data, &payload, "hook payload")
}

// cmdParseHook is the guide's parse-hook: no Event without a session id,
// nor for a turn without a transcript path.
func cmdParseHook(p *Plugin, args []string) error {
	eventType, payload, err := p.ReadPayload(args)
	if err != nil {
		return err
	}
	turn := eventType == TurnStart || eventType == TurnEnd
	if eventType == 0 || payload.SessionID == "" || (turn && payload.TranscriptPath == "") {
		return Emit(nil)
	}
	event := Event{Type: eventType, SessionID: payload.SessionID, Timestamp: p.Now()}
	if turn {
		event.SessionRef = payload.TranscriptPath
	}
	if eventType == TurnStart {
		event.Prompt = payload.Prompt
	}
	return Emit(event)
}
