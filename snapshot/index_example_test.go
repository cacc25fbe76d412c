package snapshot_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

func policy(ns, name, app string) syncer.Update {
	p := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}}
	return syncer.Update{UpdateType: syncer.KVNew, KVPair: resources.KVPair{
		Key: resources.KubernetesNetworkPolicies.KeyFor(ns, name), Value: p, Revision: "1"}}
}

// A node agent asks for the policies of a namespace, and for those that select
// pods of one app: the first is the built-in NamespaceIndex, the second an index
// declared when the Store is made. Here the Store is fed by hand.
func ExampleWithIndex() {
	kind := resources.KubernetesNetworkPolicies.Kind
	store := snapshot.NewStore(snapshot.WithIndex(kind, "app", func(kv resources.KVPair) []string {
		p, ok := kv.Value.(*networkingv1.NetworkPolicy) // not if its bytes did not decode
		if app, selects := p.Spec.PodSelector.MatchLabels["app"]; ok && selects {
			return []string{app}
		}
		return nil
	}))
	store.OnUpdates([]syncer.Update{
		policy("shop", "allow-web", "web"), policy("shop", "allow-db", "db"), policy("blog", "allow-web", "web"),
	})

	inShop, _ := store.ByIndex(kind, snapshot.NamespaceIndex, "shop")
	forWeb, _ := store.ByIndex(kind, "app", "web")
	for _, kv := range append(inShop, forWeb...) {
		fmt.Println(kv.Key)
	}
	_, err := store.ByIndex(kind, "tier", "front")
	fmt.Println(err)
	// Output:
	// NetworkPolicy.networking.k8s.io/shop/allow-db
	// NetworkPolicy.networking.k8s.io/shop/allow-web
	// NetworkPolicy.networking.k8s.io/blog/allow-web
	// NetworkPolicy.networking.k8s.io/shop/allow-web
	// snapshot: index "tier" of kind "NetworkPolicy.networking.k8s.io": no such index (the kind has ["app" "namespace"])
}

// A Broker's subscribers receive updates, not indexes: a subscriber that wants
// indexed reads subscribes a Store made with the indexes it needs.
func ExampleWithIndex_subscriber() {
	broker := snapshot.NewBroker() // pass it to syncer.New; here it is fed by hand
	broker.OnUpdates([]syncer.Update{policy("shop", "allow-web", "web"), policy("blog", "allow-web", "web")})
	broker.OnStatusUpdated(syncer.InSync)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kind := resources.KubernetesNetworkPolicies.Kind
	mine := snapshot.NewStore(snapshot.WithIndex(kind, "name", func(kv resources.KVPair) []string {
		return []string{kv.Key.Name}
	}))
	broker.Subscribe(ctx, mine)
	<-mine.Synced()
	named, _ := snapshot.ByIndex[*networkingv1.NetworkPolicy](mine, kind, "name", "allow-web")
	for _, p := range named {
		fmt.Println(p.Namespace, p.Spec.PodSelector.MatchLabels)
	}
	// Output:
	// blog map[app:web]
	// shop map[app:web]
}

// Get returns the value as the type asked for, decoded if it is lazy, and says
// which key holds which type when it is another.
func ExampleGet() {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"},
		Spec: corev1.PodSpec{NodeName: "node-a"}}
	data, _ := pod.Marshal()
	decode := func(b []byte) (k8sruntime.Object, error) {
		p := &corev1.Pod{}
		return p, p.Unmarshal(b)
	}
	key := resources.Pods.KeyFor("shop", "web")
	store := snapshot.NewStore()
	store.OnUpdates([]syncer.Update{{UpdateType: syncer.KVNew,
		KVPair: resources.KVPair{Key: key, Value: resources.NewRaw(data, decode), Revision: "7"}}}) // lazy

	p, found, err := snapshot.Get[*corev1.Pod](store, key)
	fmt.Println(p.Spec.NodeName, found, err)
	_, found, err = snapshot.Get[*corev1.Service](store, key)
	fmt.Println(found, err)
	_, found, err = snapshot.Get[*corev1.Pod](store, resources.Pods.KeyFor("shop", "db"))
	fmt.Println(found, err)
	// Output:
	// node-a true <nil>
	// true snapshot: Pod/shop/web holds a *v1.Pod, not a *v1.Service
	// false <nil>
}

// List and ByIndex return the values of a kind as the type asked for.
func ExampleList() {
	store := snapshot.NewStore()
	store.OnUpdates([]syncer.Update{
		policy("shop", "allow-web", "web"), policy("shop", "allow-db", "db"), policy("blog", "allow-web", "web"),
	})
	kind := resources.KubernetesNetworkPolicies.Kind
	all, _ := snapshot.List[*networkingv1.NetworkPolicy](store, kind)
	inShop, _ := snapshot.ByIndex[*networkingv1.NetworkPolicy](store, kind, snapshot.NamespaceIndex, "shop")
	fmt.Println(len(all), "policies,", len(inShop), "in shop:", inShop[0].Name, inShop[1].Name)
	// Output: 3 policies, 2 in shop: allow-db allow-web
}
