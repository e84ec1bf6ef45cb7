// A small driver that runs program.go with Pulumi's Automation API as an inline program
// (auto.UpsertStackInlineSource): the pulumi CLI on PATH talks to this process itself, so a Go
// program runs with no Go language host and no Pulumi.yaml (docs/guides/languages.md, "Go"). One command a run,
// for a shell or a CI job: preview, up, gate (the drift gate) or destroy. What Pulumi prints goes
// to stderr; stdout gets one line of JSON saying what the run did.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
)

// The project's name: its own config keys are `tenant-go:<key>`.
const projectName = "tenant-go"

// exitDrift is what `gate` exits with when the tenant differs from the stack: the code of the
// CLI's own `--expect-no-changes` failure.
const exitDrift = 7

// The tenant's settings, read from the environment and kept in the stack config: the provider
// plugin's own names (docs/installation-configuration.md, "Configuration"); the secrets are stored encrypted.
var tenantSettings = []struct {
	env, key string
	secret   bool
}{
	{"TENANT_DOMAIN", "tenant:domain", false},
	{"TENANT_CLIENT_ID", "tenant:clientId", false},
	{"TENANT_CLIENT_SECRET", "tenant:clientSecret", true},
	{"TENANT_API_TOKEN", "tenant:apiToken", true},
	{"TENANT_CLIENT_ASSERTION_PRIVATE_KEY", "tenant:clientAssertionPrivateKey", true},
	{"TENANT_CLIENT_ASSERTION_SIGNING_ALG", "tenant:clientAssertionSigningAlg", false},
	{"TENANT_AUDIENCE", "tenant:audience", false},
}

// The program's own settings: which client and which event stream it manages.
var programSettings = []struct{ env, key string }{
	{"PORTAL_CLIENT_ID", projectName + ":portalClientId"},
	{"STALE_EVENT_STREAM_ID", projectName + ":staleEventStreamId"},
}

// result is the line of JSON a run prints on stdout.
type result struct {
	Operation string         `json:"operation"`
	Changes   map[string]int `json:"changes,omitempty"`
	Outputs   map[string]any `json:"outputs,omitempty"`
	Drift     *bool          `json:"drift,omitempty"`
}

// The commands, each one operation of the stack.
var commands = map[string]bool{"preview": true, "up": true, "gate": true, "destroy": true}

func main() {
	// A flag set of its own: the SDK's dependencies register flags of theirs on the default one.
	flags := flag.NewFlagSet("tenant-go", flag.ExitOnError)
	stackName := flags.String("stack", "dev", "the stack to run")
	refresh := flags.Bool("refresh", false, "up: read the tenant first, so that up repairs drift")
	flags.Usage = func() {
		fmt.Fprintf(flags.Output(), "usage: %s [-stack NAME] [-refresh] preview|up|gate|destroy\n",
			os.Args[0])
		flags.PrintDefaults()
	}
	_ = flags.Parse(os.Args[1:])
	if flags.NArg() != 1 || !commands[flags.Arg(0)] {
		flags.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code, err := run(ctx, flags.Arg(0), *stackName, *refresh)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
	}
	os.Exit(code)
}

// run runs one command on the stack and prints its result; it returns the exit code.
func run(ctx context.Context, command, stackName string, refresh bool) (int, error) {
	config, err := configFromEnv()
	if err != nil {
		return 2, err
	}
	// The workspace (Pulumi.yaml and the stack's settings) lives for this run only; the state is
	// in the backend that PULUMI_BACKEND_URL names, encrypted with PULUMI_CONFIG_PASSPHRASE.
	workDir, err := os.MkdirTemp("", "tenant-go-")
	if err != nil {
		return 1, err
	}
	defer os.RemoveAll(workDir)
	stack, err := auto.UpsertStackInlineSource(ctx, stackName, projectName, program,
		auto.WorkDir(workDir), auto.SecretsProvider("passphrase"))
	if err != nil {
		return 1, err
	}
	if err := stack.SetAllConfig(ctx, config); err != nil {
		return 1, err
	}

	out := result{Operation: command}
	switch command {
	case "preview":
		res, err := stack.Preview(ctx, optpreview.ProgressStreams(os.Stderr))
		if err != nil {
			return 1, err
		}
		out.Changes = changes(res.ChangeSummary)
	case "up":
		opts := []optup.Option{optup.ProgressStreams(os.Stderr)}
		if refresh {
			opts = append(opts, optup.Refresh())
		}
		res, err := stack.Up(ctx, opts...)
		if err != nil {
			return 1, err
		}
		out.Changes = deref(res.Summary.ResourceChanges)
		out.Outputs = shown(res.Outputs)
	case "gate":
		// `pulumi refresh --preview-only --expect-no-changes`: reads every resource and changes
		// nothing; a resource whose live value differs from the stack's fails it.
		_, err := stack.PreviewRefresh(ctx, optrefresh.ExpectNoChanges(),
			optrefresh.ProgressStreams(os.Stderr))
		drift := err != nil && strings.Contains(err.Error(), "no changes were expected")
		if err != nil && !drift {
			return 1, err
		}
		out.Drift = &drift
		if drift {
			report(out)
			return exitDrift, errors.New("the tenant differs from the stack: run `up -refresh` to put it back")
		}
	case "destroy":
		res, err := stack.Destroy(ctx, optdestroy.ProgressStreams(os.Stderr))
		if err != nil {
			return 1, err
		}
		out.Changes = deref(res.Summary.ResourceChanges)
	default:
		return 2, fmt.Errorf("unknown command %q", command)
	}
	report(out)
	return 0, nil
}

// configFromEnv is the stack config from the environment. It removes the tenant's settings from
// this process's environment, so that the CLI and the plugin it starts get them from the stack
// config alone.
func configFromEnv() (auto.ConfigMap, error) {
	config := auto.ConfigMap{}
	for _, s := range tenantSettings {
		if value, ok := os.LookupEnv(s.env); ok {
			config[s.key] = auto.ConfigValue{Value: value, Secret: s.secret}
			os.Unsetenv(s.env)
		}
	}
	for _, s := range programSettings {
		value := os.Getenv(s.env)
		if value == "" {
			return nil, fmt.Errorf("%s is not set: it is the stack config %s", s.env, s.key)
		}
		config[s.key] = auto.ConfigValue{Value: value}
	}
	return config, nil
}

// changes is a preview's summary with string keys (`create`, `same`, ...).
func changes[K ~string](summary map[K]int) map[string]int {
	out := map[string]int{}
	for op, n := range summary {
		out[string(op)] = n
	}
	return out
}

// deref is an update's summary (`create`, `same`, ...), which the CLI may leave out.
func deref(summary *map[string]int) map[string]int {
	if summary == nil {
		return nil
	}
	return *summary
}

// shown is the stack's outputs as they may be printed: a secret one as "[secret]".
func shown(outputs auto.OutputMap) map[string]any {
	out := map[string]any{}
	for name, output := range outputs {
		if output.Secret {
			out[name] = "[secret]"
		} else {
			out[name] = output.Value
		}
	}
	return out
}

// report prints the run's result as one line of JSON on stdout.
func report(out result) {
	line, err := json.Marshal(out)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(line))
}
