package demo_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/demo"
	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/resources"
)

// fakeCluster holds a sample object of each of types.
func fakeCluster(types ...resources.Type) *dynamicfake.FakeDynamicClient {
	var objs []runtime.Object
	lists := map[schema.GroupVersionResource]string{}
	for _, t := range types {
		o := samples.Object(t, samples.DemoNamespace, "sample-0000")
		objs = append(objs, o)
		lists[t.GVR] = o.GetKind() + "List"
	}
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), lists, objs...)
}

func ExampleChanger_Step() {
	dyn := fakeCluster(resources.Nodes)
	c := demo.New(dyn, []resources.Type{resources.Nodes}, samples.DemoNamespace)
	ctx := context.Background()
	for op := range 3 {
		if err := c.Step(ctx, resources.Nodes, op); err != nil {
			fmt.Println(err)
		}
	}
	for _, a := range dyn.Actions() {
		fmt.Println(describe(a))
	}
	// Output:
	// create nodes demo-0001
	// get nodes demo-0001
	// update nodes demo-0001
	// delete nodes demo-0001
}

func TestNamespacesAreLeftAlone(t *testing.T) {
	dyn := fakeCluster(resources.Namespaces, resources.Pods)
	c := demo.New(dyn, []resources.Type{resources.Namespaces, resources.Pods}, samples.DemoNamespace)
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 10)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Run(ctx, 1000, func(err error) { errs <- err })
	}()
	for len(dyn.Actions()) < 12 {
		goruntime.Gosched()
		select {
		case err := <-errs:
			t.Fatal(err)
		default:
		}
	}
	cancel()
	<-done
	for _, a := range dyn.Actions() {
		if a.GetResource().Resource != "pods" {
			t.Fatalf("changed %s", describe(a))
		}
	}
}

func describe(a k8stesting.Action) string {
	name := ""
	switch a := a.(type) {
	case k8stesting.CreateAction:
		name = a.GetObject().(interface{ GetName() string }).GetName()
	case k8stesting.UpdateAction:
		name = a.GetObject().(interface{ GetName() string }).GetName()
	case k8stesting.GetAction:
		name = a.GetName()
	case k8stesting.DeleteAction:
		name = a.GetName()
	}
	return a.GetVerb() + " " + a.GetResource().Resource + " " + name
}
