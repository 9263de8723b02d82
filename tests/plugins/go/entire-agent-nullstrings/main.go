// Command entire-agent-nullstrings writes null for every field it has no
// value for: its answer types are Go structs of pointers and slices
// marshalled without omitempty, so a nil *string, *bool, slice or map is
// null (as a TypeScript `string | null` or a Python Optional[str] would
// be). The host decodes with Go's encoding/json, where null into a string,
// number, bool or time is the zero value (docs/host.md "How output is
// decoded"): an Event with "prompt": null is an Event without a prompt.
//
//   - every Event carries all its optional fields, null where there is
//     nothing: model, timestamp, previous_session_id, tool_use_id,
//     subagent_id, subagent_type, task_description, response_message,
//     tool_input, metadata always; prompt except on a TurnStart with one;
//     session_ref on SessionStart and SessionEnd;
//   - info answers null for is_preview, protected_files, caller_env_vars;
//   - read-session answers null for start_time and the file lists.
//
// Its twins are this program built with `-ldflags -X main.variant=<name>`:
// null-session-id writes "session_id": null on SessionStart (the host reads
// an empty id and fails the hook); other-case writes the struct tags
// Session_ID and Type (Go's decoder matches keys case-insensitively: the
// host reads them as usual).
//
// Capability: hooks (Claude Code shaped payloads).
package main

import (
	"errors"

	"goplugins/wild"
)

// variant is the twin, set at build time (see the package).
var variant = ""

func main() {
	p := wild.New("nullstrings", "NullStrings",
		"NullStrings - fictional agent whose plugin writes null for what it lacks")
	p.Capabilities = map[string]bool{"hooks": true}
	p.Hooks = []wild.Hook{
		{Name: "session-start", Key: "SessionStart", Type: wild.SessionStart},
		{Name: "user-prompt-submit", Key: "UserPromptSubmit", Type: wild.TurnStart},
		{Name: "stop", Key: "Stop", Type: wild.TurnEnd},
		{Name: "session-end", Key: "SessionEnd", Type: wild.SessionEnd},
	}
	p.Commands["info"] = info
	p.Commands["read-session"] = readSession
	p.Commands["parse-hook"] = parseHook
	p.Main()
}

// Info is info's answer with the optional fields as pointers and slices.
type Info struct {
	wild.Info
	IsPreview      *bool    `json:"is_preview"`
	ProtectedFiles []string `json:"protected_files"`
	CallerEnvVars  []string `json:"caller_env_vars"`
}

func info(p *wild.Plugin, args []string) error {
	if _, err := p.Parse(args, nil, nil, nil); err != nil {
		return err
	}
	return wild.Emit(Info{Info: p.Info()})
}

// Session is read-session's answer, nothing omitted.
type Session struct {
	SessionID     *string  `json:"session_id"`
	AgentName     string   `json:"agent_name"`
	RepoPath      string   `json:"repo_path"`
	SessionRef    string   `json:"session_ref"`
	StartTime     *string  `json:"start_time"`
	NativeData    []byte   `json:"native_data"`
	ModifiedFiles []string `json:"modified_files"`
	NewFiles      []string `json:"new_files"`
	DeletedFiles  []string `json:"deleted_files"`
}

func readSession(p *wild.Plugin, args []string) error {
	if _, err := p.Parse(args, nil, nil, nil); err != nil {
		return err
	}
	data, err := wild.ReadStdin()
	if err != nil {
		return err
	}
	var in wild.HookInput
	if err := wild.DecodeObject(data, &in, "hook input"); err != nil {
		return err
	}
	if in.SessionRef == "" {
		return errors.New("hook input has no session_ref")
	}
	if err := wild.CheckSessionRef(in.SessionRef); err != nil {
		return err
	}
	native, err := wild.ReadFile(in.SessionRef, "session")
	if err != nil {
		return err
	}
	answer := Session{AgentName: p.Name, RepoPath: wild.RepoRoot(), SessionRef: in.SessionRef,
		NativeData: native}
	if in.SessionID != "" {
		answer.SessionID = &in.SessionID
	}
	return wild.Emit(answer)
}

// Optional is every optional field of an Event, as nullable values.
type Optional struct {
	SessionRef        *string        `json:"session_ref"`
	Prompt            *string        `json:"prompt"`
	Model             *string        `json:"model"`
	Timestamp         *string        `json:"timestamp"`
	PreviousSessionID *string        `json:"previous_session_id"`
	ToolUseID         *string        `json:"tool_use_id"`
	SubagentID        *string        `json:"subagent_id"`
	SubagentType      *string        `json:"subagent_type"`
	TaskDescription   *string        `json:"task_description"`
	ResponseMessage   *string        `json:"response_message"`
	ToolInput         map[string]any `json:"tool_input"`
	Metadata          map[string]any `json:"metadata"`
}

// Event is parse-hook's answer.
type Event struct {
	Type      int     `json:"type"`
	SessionID *string `json:"session_id"`
	Optional
}

// OtherCaseEvent is the other-case twin's Event: the same fields under
// struct tags of another case.
type OtherCaseEvent struct {
	Type      int     `json:"Type"`
	SessionID *string `json:"Session_ID"`
	Optional
}

func parseHook(p *wild.Plugin, args []string) error {
	eventType, payload, err := p.ReadPayload(args)
	if err != nil {
		return err
	}
	turn := eventType == wild.TurnStart || eventType == wild.TurnEnd
	if eventType == 0 || payload.SessionID == "" || (turn && payload.TranscriptPath == "") {
		return wild.Emit(nil)
	}
	var optional Optional
	if turn {
		optional.SessionRef = &payload.TranscriptPath
	}
	if eventType == wild.TurnStart && payload.Prompt != "" {
		optional.Prompt = &payload.Prompt
	}
	id := &payload.SessionID
	if variant == "null-session-id" && eventType == wild.SessionStart {
		id = nil
	}
	if variant == "other-case" {
		return wild.Emit(OtherCaseEvent{Type: eventType, SessionID: id, Optional: optional})
	}
	return wild.Emit(Event{Type: eventType, SessionID: id, Optional: optional})
}
