package fsm

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// applierFunc answers a proposal without Raft: a seam for Propose's own checks.
type applierFunc func(cmd []byte) (any, error)

func (f applierFunc) Apply(_ context.Context, cmd []byte) (any, error) { return f(cmd) }

// Propose hands back the FSM's answer typed, answers nothing-but-success as Done, and turns
// an answer of another type into an error instead of a panic.
func TestProposeTypesTheAnswer(t *testing.T) {
	f := New()
	var index uint64
	throughFSM := applierFunc(func(cmd []byte) (any, error) {
		index++
		out := f.Apply(&raft.Log{Index: index, Data: cmd})
		if err, ok := out.(error); ok {
			return nil, err
		}
		return out, nil
	})
	ctx := context.Background()
	got, err := Propose(ctx, throughFSM, ProposeSeedIdentity, &raftv1.SeedIdentity{Name: "users", Value: 41})
	if err != nil || got != 41 {
		t.Fatalf("seed users| to 41: %d, %v", got, err)
	}
	res, err := Propose(ctx, throughFSM, ProposeIdentityBatch, &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{{Name: "users", Count: 2}}})
	if err != nil || len(res.Ranges) != 1 || res.Ranges[0].First != 42 || res.Ranges[0].Last != 43 {
		t.Fatalf("two of users| after the seed: %+v, %v; want 42-43", res, err)
	}
	if _, err := Propose(ctx, throughFSM, ProposeCreateDatabase, &raftv1.CreateDatabase{Name: "billing"}); err != nil {
		t.Fatalf("create a database (answers nothing but success): %v", err)
	}

	wrong := applierFunc(func([]byte) (any, error) { return "not a range", nil })
	if _, err := Propose(ctx, wrong, ProposeHiLoGrant, &raftv1.HiLoReserve{Tag: "orders", Capacity: 1, GrantId: "g"}); err == nil || !strings.Contains(err.Error(), "answered string") {
		t.Fatalf("an answer of the wrong type: %v, want an error naming it", err)
	}
	nothing := applierFunc(func([]byte) (any, error) { return nil, nil })
	if _, err := Propose(ctx, nothing, ProposeSeedHiLo, &raftv1.SeedHiLo{Tag: "orders", Max: 5}); err == nil {
		t.Fatal("no answer where a number was due: no error")
	}
}

// frames reports whether op's command takes op's message: Encode refuses any other.
func frames[Req proto.Message, Resp any](op Op[Req, Resp]) error {
	req := reflect.New(reflect.TypeFor[Req]().Elem()).Interface().(Req)
	_, err := Encode(op.Type, req)
	return err
}

// Every Op names a command that carries its message.
func TestEveryOpFramesItsMessage(t *testing.T) {
	for name, err := range map[string]error{
		"IdentityBatch": frames(ProposeIdentityBatch), "SeedIdentity": frames(ProposeSeedIdentity),
		"RegisterNode": frames(ProposeRegisterNode), "RemoveNode": frames(ProposeRemoveNode),
		"RaiseFloor": frames(ProposeRaiseFloor), "SetClusterSecret": frames(ProposeSetClusterSecret),
		"CreateDatabase": frames(ProposeCreateDatabase), "DeleteDatabase": frames(ProposeDeleteDatabase),
		"CreateKey": frames(ProposeCreateKey), "DeleteKey": frames(ProposeDeleteKey),
		"SeedHiLo": frames(ProposeSeedHiLo), "Claim": frames(ProposeClaim), "Release": frames(ProposeRelease),
		"HiLoPoolReserve": frames(ProposeHiLoPoolReserve), "HiLoGrant": frames(ProposeHiLoGrant),
		"HiLoReturnGrant": frames(ProposeHiLoReturnGrant), "SetFold": frames(ProposeSetFold),
		"LocalReservations": frames(ProposeLocalReservations),
	} {
		if err != nil {
			t.Errorf("Propose%s: %v", name, err)
		}
	}
}
