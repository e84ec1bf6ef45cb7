// Command pulumi-language-nodejs is the Node.js language host that the tests put next to the
// pulumi CLI they build. The Go module proxy serves Pulumi's CLI but refuses Pulumi's own language
// host module (docs/design/pulumi-cli.md), so this one stands in for it, doing only what a Node.js program
// needs: Run starts the runner that the program's own @pulumi/pulumi ships (@pulumi/pulumi/cmd/run)
// with the arguments and environment that runner reads, RunPlugin starts a policy pack with the
// policy runner its @pulumi/pulumi ships, and GenerateProgram (the TypeScript that `pulumi import`
// writes) is Pulumi's own Node.js code generator. Everything else (the deployment, the state, the
// secrets, the provider hosts) is the CLI's and the SDK's own.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// userActionableExit is the runner's exit code after it has already printed an error the user can
// act on: the CLI is asked to bail without adding a message of its own.
const userActionableExit = 32

type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	engineAddress string
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "-version" {
		fmt.Println(version.Version)
		return
	}
	// The engine's address comes last. Before it, the CLI may pass flags: `-tracing`, and, from
	// older CLIs (3.139), Pulumi.yaml's runtime options and `-root` as `-name=value`. The options
	// also arrive with every request (ProgramInfo.Options), which is where this host reads them.
	var engineAddress string
	if n := len(os.Args); n > 1 && !strings.HasPrefix(os.Args[n-1], "-") {
		engineAddress = os.Args[n-1]
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := make(chan bool)
	go func() {
		<-ctx.Done()
		close(stop)
	}()
	if engineAddress != "" {
		// Exit when the engine is gone (a killed CLI), as every plugin of the CLI does.
		if err := rpcutil.Healthcheck(ctx, engineAddress, 5*time.Minute, cancel); err != nil {
			fail(fmt.Errorf("could not start the health check of the engine: %w", err))
		}
	}
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: stop,
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, &host{engineAddress: engineAddress})
			return nil
		},
	})
	if err != nil {
		fail(fmt.Errorf("could not start the language host: %w", err))
	}
	// The CLI reads the port from the first line of standard output.
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fail(fmt.Errorf("the language host stopped serving: %w", err))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func (h *host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version.Version}, nil
}

// GetRequiredPlugins and GetRequiredPackages name no plugin: the dynamic providers' host ships
// with @pulumi/pulumi, a test installs the provider plugin a program uses itself (`pulumi plugin
// install`), and plugin acquisition is off.
func (h *host) GetRequiredPlugins(
	context.Context, *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

func (h *host) GetRequiredPackages(
	context.Context, *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{}, nil
}

func (h *host) GetProgramDependencies(
	context.Context, *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	return &pulumirpc.GetProgramDependenciesResponse{}, nil
}

// Run runs the program with the runner of the program's own @pulumi/pulumi. A failed program is
// reported in the response, as the CLI expects, not as an RPC error.
func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	info := req.GetInfo()
	runner, err := resolve(info.GetProgramDirectory(), "@pulumi/pulumi/cmd/run", "pulumi install")
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	options := info.GetOptions().AsMap()
	args := nodeArgs(options)
	args = append(args, runner)
	flagIfSet := func(name, value string) {
		if value != "" {
			args = append(args, "--"+name, value)
		}
	}
	flagIfSet("monitor", req.GetMonitorAddress())
	flagIfSet("engine", h.engineAddress)
	flagIfSet("organization", req.GetOrganization())
	flagIfSet("project", req.GetProject())
	flagIfSet("root-directory", info.GetRootDirectory())
	flagIfSet("stack", req.GetStack())
	flagIfSet("pwd", info.GetProgramDirectory())
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	if req.GetParallel() > 0 {
		flagIfSet("parallel", strconv.Itoa(int(req.GetParallel())))
	}
	args = append(args, info.GetEntryPoint())
	args = append(args, req.GetArgs()...)

	env, err := programEnv(req, options)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Env = env
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			if exit.ExitCode() == userActionableExit {
				return &pulumirpc.RunResponse{Bail: true}, nil
			}
			return &pulumirpc.RunResponse{
				Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exit.ExitCode()),
			}, nil
		}
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("could not run node: %v", err)}, nil
	}
	return &pulumirpc.RunResponse{}, nil
}

// RunPlugin starts a policy pack (kind "analyzer"), the only kind of plugin a Node.js program here
// brings, with the policy runner of the pack's own @pulumi/pulumi:
// `node <run-policy-pack> <args...> <pack directory>`, run in the pack's directory.
//
// That runner reads the stack it judges from its environment, not from the engine, so the pack
// cannot start until the engine has told us which stack this is: Pulumi's SDK ships a proxy for
// exactly that (sdk.PolicyProxy). The proxy answers the engine's handshake and stack
// configuration, then the pack starts with PULUMI_NODEJS_* and PULUMI_CONFIG set from it, and the
// proxy forwards every later call to it. The pack's port goes to the engine through the proxy.
func (h *host) RunPlugin(
	req *pulumirpc.RunPluginRequest, server pulumirpc.LanguageRuntime_RunPluginServer,
) error {
	if req.GetKind() != "analyzer" {
		return fmt.Errorf("this language host runs policy packs only, not %q plugins", req.GetKind())
	}
	ctx := server.Context()
	info := req.GetInfo()
	closer, stdout, stderr, err := rpcutil.MakeRunPluginStreams(server, false)
	if err != nil {
		return err
	}
	defer closer.Close()

	runner, err := resolve(
		info.GetProgramDirectory(), "@pulumi/pulumi/cmd/run-policy-pack",
		"npm install in "+info.GetProgramDirectory())
	if err != nil {
		return err
	}
	options := info.GetOptions().AsMap()
	args := append(nodeArgs(options), runner)
	args = append(args, req.GetArgs()...)
	args = append(args, info.GetProgramDirectory())

	env := req.GetEnv()
	if len(env) == 0 {
		env = os.Environ()
	}
	env = append(env, typeScriptEnv(options)...)

	proxy, stdout, err := sdk.NewPolicyProxy(ctx, stdout)
	if err != nil {
		return fmt.Errorf("could not start the policy pack proxy: %w", err)
	}
	stack, err := proxy.AwaitConfiguration(ctx)
	if err != nil {
		return fmt.Errorf("could not get the stack configuration: %w", err)
	}
	if stack != nil {
		configJSON, err := json.Marshal(stack.GetConfig())
		if err != nil {
			return err
		}
		env = append(env,
			"PULUMI_NODEJS_ORGANIZATION="+stack.GetOrganization(),
			"PULUMI_NODEJS_PROJECT="+stack.GetProject(),
			"PULUMI_NODEJS_STACK="+stack.GetStack(),
			"PULUMI_NODEJS_DRY_RUN="+strconv.FormatBool(stack.GetDryRun()),
			"PULUMI_CONFIG="+string(configJSON),
		)
	}

	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = info.GetProgramDirectory()
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("could not run node: %w", err)
	}
	// Attach returns when the pack exits.
	if err := proxy.Attach(ctx, cmd); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return fmt.Errorf("the policy pack exited with code %d", exit.ExitCode())
		}
		return err
	}
	return closer.Close()
}

// GenerateProgram turns a PCL program into TypeScript: what `pulumi import` asks for, for the
// code of the resources it adopted (`--out FILE`, or the code it prints). The request's files are
// bound against the package schemas that the CLI serves at LoaderTarget, and the bound program
// goes to Pulumi's own Node.js generator (pkg/v3/codegen/nodejs), the one Pulumi's host calls: the
// code is the code Pulumi's host writes. The binding is lenient unless the CLI asks for strict
// (it does not for imports, whose code may name a parent or a provider declared elsewhere in the
// program), and invokes bind to their output-versioned form, as Pulumi's Node.js host binds them.
// A program that does not parse or bind is answered with its diagnostics and no files, as the
// protocol says; only a loader that cannot be reached or a generator that fails is an error.
func (h *host) GenerateProgram(
	ctx context.Context, req *pulumirpc.GenerateProgramRequest,
) (*pulumirpc.GenerateProgramResponse, error) {
	loader, err := schema.NewLoaderClient(req.GetLoaderTarget())
	if err != nil {
		return nil, fmt.Errorf("could not reach the CLI's schema loader: %w", err)
	}
	defer loader.Close()

	parser := syntax.NewParser()
	// In the order of their names, so that the same request gives the same program.
	names := make([]string, 0, len(req.GetSource()))
	for name := range req.GetSource() {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := parser.ParseFile(strings.NewReader(req.GetSource()[name]), name); err != nil {
			return nil, fmt.Errorf("could not read %s: %w", name, err)
		}
	}
	if parser.Diagnostics.HasErrors() {
		return diagnosticsOnly(parser.Diagnostics), nil
	}

	options := []pcl.BindOption{pcl.PreferOutputVersionedInvokes}
	if !req.GetStrict() {
		options = append(options, pcl.NonStrictBindOptions()...)
	}
	program, bindDiags, err := pcl.BindProgramWithContext(
		ctx, parser.Files, schema.NewCachedLoader(loader), options...)
	diags := append(parser.Diagnostics, bindDiags...)
	if bindDiags.HasErrors() {
		// BindProgram returns its error diagnostics as its error too: they are the answer.
		return diagnosticsOnly(diags), nil
	}
	if err != nil {
		return nil, fmt.Errorf("could not bind the program: %w", err)
	}

	files, genDiags, err := nodejs.GenerateProgram(program)
	if err != nil {
		return nil, fmt.Errorf("could not generate the TypeScript program: %w", err)
	}
	return &pulumirpc.GenerateProgramResponse{
		Source:      files,
		Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(append(diags, genDiags...)),
	}, nil
}

// diagnosticsOnly is the answer to a program that cannot be generated: why, and no files.
func diagnosticsOnly(diags hcl.Diagnostics) *pulumirpc.GenerateProgramResponse {
	return &pulumirpc.GenerateProgramResponse{
		Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags),
	}
}

// programEnv is this process's environment plus what the runner reads: the stack config and its
// secret keys as JSON, and the TypeScript options of Pulumi.yaml (typescript defaults to true).
func programEnv(req *pulumirpc.RunRequest, options map[string]any) ([]string, error) {
	config := req.GetConfig()
	if config == nil {
		config = map[string]string{}
	}
	configJSON, err := json.Marshal(config)
	if err != nil {
		return nil, err
	}
	secretKeys := req.GetConfigSecretKeys()
	if secretKeys == nil {
		secretKeys = []string{}
	}
	secretKeysJSON, err := json.Marshal(secretKeys)
	if err != nil {
		return nil, err
	}
	env := append(os.Environ(),
		"PULUMI_CONFIG="+string(configJSON),
		"PULUMI_CONFIG_SECRET_KEYS="+string(secretKeysJSON),
	)
	return append(env, typeScriptEnv(options)...), nil
}

// typeScriptEnv is what the runners read of the TypeScript options of Pulumi.yaml or
// PulumiPolicy.yaml: typescript defaults to true.
func typeScriptEnv(options map[string]any) []string {
	var env []string
	if typescript, ok := options["typescript"].(bool); !ok || typescript {
		env = append(env, "PULUMI_NODEJS_TYPESCRIPT=true")
	}
	if tsconfig, ok := options["tsconfig"].(string); ok && tsconfig != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+tsconfig)
	}
	return env
}

// nodeArgs are the `nodeargs` of Pulumi.yaml, split on white space.
func nodeArgs(options map[string]any) []string {
	value, _ := options["nodeargs"].(string)
	return strings.Fields(value)
}

// resolve finds a module as Node does from dir, so that the program runs with its own SDK. When
// it cannot, it says what Pulumi's own language host says, word for word (docs/design/pulumi-cli.md):
// `install` is the command it suggests.
func resolve(dir, module, install string) (string, error) {
	cmd := exec.Command("node", "-e", "console.log(require.resolve(process.argv[1]))", module)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf(
			"It looks like the Pulumi SDK has not been installed. Have you run %s?", install)
	}
	return strings.TrimSpace(string(out)), nil
}
