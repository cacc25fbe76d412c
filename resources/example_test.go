package resources_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesync/kubesync/resources"
)

// A built-in type, refined: only one node's pods, each converted to the little a
// consumer keeps (here its labels), which saves memory downstream.
func ExampleType_WithConvert() {
	pods := resources.Pods.
		WithSelectors("", "spec.nodeName=node-a").
		WithConvert(func(obj runtime.Object) ([]resources.KVPair, error) {
			p, ok := obj.(*corev1.Pod)
			if !ok {
				return nil, fmt.Errorf("not a pod: %T", obj)
			}
			return []resources.KVPair{{
				Key:      resources.Pods.KeyFor(p.Namespace, p.Name),
				Value:    p.Labels,
				Revision: p.ResourceVersion,
			}}, nil
		})
	kvs, err := pods.Convert(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace: "shop", Name: "web", ResourceVersion: "42", Labels: map[string]string{"app": "web"},
	}})
	if err != nil {
		panic(err)
	}
	fmt.Println(pods.Name, pods.FieldSelector)
	fmt.Println(kvs[0].Key, kvs[0].Value, kvs[0].Revision)
	// Output:
	// pods spec.nodeName=node-a
	// Pod/shop/web map[app:web] 42
}

// A custom type, such as a CRD of your own, served through the dynamic client.
func ExampleCustom() {
	widgets := resources.Custom(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, "Widget", true)
	fmt.Println(widgets.Name, widgets.Kind, widgets.Validate())
	fmt.Println(widgets.InNamespace("shop").KeyFor("shop", "w1"))
	// Output:
	// widgets.example.com Widget.example.com <nil>
	// Widget.example.com/shop/w1
}

// A consumer that needs to know which ConfigMaps exist, not what they hold: on the
// raw path no ConfigMap body is ever decoded, and each value is nil.
func ExampleType_WithKeysOnly() {
	names := resources.ConfigMaps.WithKeysOnly()
	kvs, err := names.Convert(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Namespace: "shop", Name: "settings", ResourceVersion: "7", UID: "u1",
	}, Data: map[string]string{"big": "..."}})
	if err != nil {
		panic(err)
	}
	fmt.Println(kvs[0].Key, kvs[0].Revision, kvs[0].UID, kvs[0].Value)
	fmt.Println(names.WithConvert(nil).Validate() == nil, resources.ConfigMaps.WithKeysOnly().
		WithConvert(func(runtime.Object) ([]resources.KVPair, error) { return nil, nil }).Validate())
	// Output:
	// ConfigMap/shop/settings 7 u1 <nil>
	// true resource type "configmaps" is keys-only and has a conversion: choose one
}
