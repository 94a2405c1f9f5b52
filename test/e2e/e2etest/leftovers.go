package e2etest

import (
	"fmt"
	"strings"
)

// dockerBefore is the docker volumes there were when the run began (nil without docker): a
// volume that appeared while the run went on, attached to no container, is one it left.
type dockerBefore struct {
	volumes map[string]bool
}

// snapshotDocker records the volumes there are now.
func snapshotDocker() *dockerBefore {
	b := &dockerBefore{volumes: map[string]bool{}}
	for _, v := range strings.Fields(docker("volume", "ls", "-q")) {
		b.volumes[v] = true
	}
	return b
}

// leftovers is what this run left in docker after its sweep, one line each: the containers,
// networks and volumes labelled as one of its compose projects, and the volumes that appeared
// while it ran, are attached to no container, and are labelled as no other project's (the
// anonymous /data volume of a container removed without -v: the image declares VOLUME /data).
// A chaos slot's project is this run's only while no other chaos suite holds the slot, so it
// is checked under the slot's lock, or not at all.
func (b *dockerBefore) leftovers() []string {
	ownProjects.Lock()
	own := make(map[string]bool, len(ownProjects.names))
	for name := range ownProjects.names {
		_, chaos := chaosSlotOf(name)
		own[name] = !chaos
	}
	ownProjects.Unlock()
	if len(own) == 0 {
		return nil // the run started nothing in docker
	}
	for s := range ChaosSlot(ChaosSlots) {
		if _, ran := own[s.Project()]; ran {
			if release, err := s.tryLock(); err == nil {
				defer release()
				own[s.Project()] = true
			}
		}
	}
	var left []string
	for name, mine := range own {
		if !mine {
			continue
		}
		filter := "label=" + ComposeProjectLabel + "=" + name
		for _, kind := range [][]string{{"ps", "-aq"}, {"network", "ls", "-q"}, {"volume", "ls", "-q"}} {
			for _, id := range strings.Fields(docker(append(kind, "--filter", filter)...)) {
				left = append(left, fmt.Sprintf("%s %s of project %s", kind[0], id, name))
			}
		}
	}
	for _, v := range strings.Fields(docker("volume", "ls", "-q", "--filter", "dangling=true")) {
		if b.volumes[v] {
			continue
		}
		// The name first: a volume removed meanwhile prints nothing.
		name, project, found := strings.Cut(strings.TrimSpace(docker("volume", "inspect", "-f",
			`{{.Name}}|{{index .Labels "`+ComposeProjectLabel+`"}}`, v)), "|")
		if found && name == v && (project == "" || own[project]) {
			left = append(left, fmt.Sprintf("volume %s (project %q), made during the run and attached to no container", v, project))
		}
	}
	return left
}
