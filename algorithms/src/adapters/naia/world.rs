//! The world naia reads and writes: entities in a `BTreeMap` (so every
//! listing naia asks for comes in one order), each with its components.
//!
//! naia leaves the world to the game (its demos bring a small one, Bevy
//! users their ECS); this is the smallest that keeps naia's
//! `WorldMutType` contract: publishing registers a component's mutator
//! with naia, so setting a property marks it for sending.

use naia_shared::{
    ComponentFieldUpdate, ComponentKind, ComponentKinds, ComponentUpdate, EntityAndGlobalEntityConverter,
    GlobalWorldManagerType, LocalEntityAndGlobalEntityConverter, ReplicaDynMutWrapper, ReplicaDynRefWrapper,
    ReplicaMutTrait, ReplicaMutWrapper, ReplicaRefTrait, ReplicaRefWrapper, Replicate, ReplicatedComponent, SerdeErr,
    WorldMutType, WorldRefType,
};
use std::collections::BTreeMap;

/// An entity of the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Entity(u32);

/// Entities and their components.
#[derive(Default)]
pub struct World {
    entities: BTreeMap<Entity, Vec<Box<dyn Replicate>>>,
    next: u32,
}

impl World {
    /// What naia reads.
    pub fn proxy(&self) -> WorldRef<'_> {
        WorldRef(self)
    }

    /// What naia writes.
    pub fn proxy_mut(&mut self) -> WorldMut<'_> {
        WorldMut(self)
    }

    /// `entity`'s component `R`.
    pub fn get<R: ReplicatedComponent>(&self, entity: &Entity) -> Option<&R> {
        self.entities.get(entity)?.iter().find_map(|c| c.to_any().downcast_ref::<R>())
    }

    fn of_kind(&self, entity: &Entity, kind: &ComponentKind) -> Option<&dyn Replicate> {
        self.entities.get(entity)?.iter().find(|c| c.kind() == *kind).map(|c| c.as_ref())
    }

    fn of_kind_mut(&mut self, entity: &Entity, kind: &ComponentKind) -> Option<&mut Box<dyn Replicate>> {
        self.entities.get_mut(entity)?.iter_mut().find(|c| c.kind() == *kind)
    }

    fn kinds(&self, entity: &Entity) -> Vec<ComponentKind> {
        self.entities.get(entity).map(|cs| cs.iter().map(|c| c.kind()).collect()).unwrap_or_default()
    }

    fn insert(&mut self, entity: &Entity, component: Box<dyn Replicate>) {
        if let Some(cs) = self.entities.get_mut(entity) {
            // One component of a kind: a second replaces the first.
            cs.retain(|c| c.kind() != component.kind());
            cs.push(component);
        }
    }

    fn publish(
        &mut self,
        kinds: &ComponentKinds,
        converter: &dyn EntityAndGlobalEntityConverter<Entity>,
        manager: &dyn GlobalWorldManagerType,
        entity: &Entity,
        kind: &ComponentKind,
    ) {
        let Ok(global) = converter.entity_to_global_entity(entity) else { return };
        if let Some(c) = self.of_kind_mut(entity, kind) {
            let mutator = manager.register_component(kinds, &global, kind, c.diff_mask_size());
            c.publish(&mutator);
        }
    }
}

/// naia's read access.
pub struct WorldRef<'w>(&'w World);

/// naia's write access.
pub struct WorldMut<'w>(&'w mut World);

struct Ref<'a, R>(&'a R);

impl<R: Replicate> ReplicaRefTrait<R> for Ref<'_, R> {
    fn to_ref(&self) -> &R {
        self.0
    }
}

struct Mut<'a, R>(&'a mut R);

impl<R: Replicate> ReplicaRefTrait<R> for Mut<'_, R> {
    fn to_ref(&self) -> &R {
        self.0
    }
}

impl<R: Replicate> ReplicaMutTrait<R> for Mut<'_, R> {
    fn to_mut(&mut self) -> &mut R {
        self.0
    }
}

fn read_impl<'a, R: ReplicatedComponent>(w: &'a World, entity: &Entity) -> Option<ReplicaRefWrapper<'a, R>> {
    w.get::<R>(entity).map(|r| ReplicaRefWrapper::new(Ref(r)))
}

fn dyn_read_impl<'a>(w: &'a World, entity: &Entity, kind: &ComponentKind) -> Option<ReplicaDynRefWrapper<'a>> {
    w.of_kind(entity, kind).map(|c| ReplicaDynRefWrapper::new(c.dyn_ref()))
}

macro_rules! world_ref {
    ($t:ident) => {
        impl WorldRefType<Entity> for $t<'_> {
            fn has_entity(&self, entity: &Entity) -> bool {
                self.0.entities.contains_key(entity)
            }
            fn entities(&self) -> Vec<Entity> {
                self.0.entities.keys().copied().collect()
            }
            fn has_component<R: ReplicatedComponent>(&self, entity: &Entity) -> bool {
                self.0.get::<R>(entity).is_some()
            }
            fn has_component_of_kind(&self, entity: &Entity, kind: &ComponentKind) -> bool {
                self.0.of_kind(entity, kind).is_some()
            }
            fn component<R: ReplicatedComponent>(&self, entity: &Entity) -> Option<ReplicaRefWrapper<'_, R>> {
                read_impl(self.0, entity)
            }
            fn component_of_kind<'a>(
                &'a self,
                entity: &Entity,
                kind: &ComponentKind,
            ) -> Option<ReplicaDynRefWrapper<'a>> {
                dyn_read_impl(self.0, entity, kind)
            }
        }
    };
}

world_ref!(WorldRef);
world_ref!(WorldMut);

impl WorldMutType<Entity> for WorldMut<'_> {
    fn spawn_entity(&mut self) -> Entity {
        let e = Entity(self.0.next);
        self.0.next += 1;
        self.0.entities.insert(e, Vec::new());
        e
    }

    fn local_duplicate_entity(&mut self, entity: &Entity) -> Entity {
        let copy = self.spawn_entity();
        self.local_duplicate_components(&copy, entity);
        copy
    }

    fn local_duplicate_components(&mut self, to: &Entity, from: &Entity) {
        let copies: Vec<Box<dyn Replicate>> =
            self.0.entities.get(from).map(|cs| cs.iter().map(|c| c.copy_to_box()).collect()).unwrap_or_default();
        for c in copies {
            self.0.insert(to, c);
        }
    }

    fn despawn_entity(&mut self, entity: &Entity) {
        self.0.entities.remove(entity);
    }

    fn component_kinds(&mut self, entity: &Entity) -> Vec<ComponentKind> {
        self.0.kinds(entity)
    }

    fn component_mut<R: ReplicatedComponent>(&mut self, entity: &Entity) -> Option<ReplicaMutWrapper<'_, R>> {
        let c = self.0.entities.get_mut(entity)?.iter_mut().find_map(|c| c.to_any_mut().downcast_mut::<R>())?;
        Some(ReplicaMutWrapper::new(Mut(c)))
    }

    fn component_mut_of_kind<'a>(
        &'a mut self,
        entity: &Entity,
        kind: &ComponentKind,
    ) -> Option<ReplicaDynMutWrapper<'a>> {
        self.0.of_kind_mut(entity, kind).map(|c| ReplicaDynMutWrapper::new(c.dyn_mut()))
    }

    fn component_apply_update(
        &mut self,
        converter: &dyn LocalEntityAndGlobalEntityConverter,
        entity: &Entity,
        kind: &ComponentKind,
        update: ComponentUpdate,
    ) -> Result<(), SerdeErr> {
        match self.0.of_kind_mut(entity, kind) {
            Some(c) => c.read_apply_update(converter, update),
            None => Ok(()),
        }
    }

    fn component_apply_field_update(
        &mut self,
        converter: &dyn LocalEntityAndGlobalEntityConverter,
        entity: &Entity,
        kind: &ComponentKind,
        update: ComponentFieldUpdate,
    ) -> Result<(), SerdeErr> {
        match self.0.of_kind_mut(entity, kind) {
            Some(c) => c.read_apply_field_update(converter, update),
            None => Ok(()),
        }
    }

    fn mirror_entities(&mut self, to: &Entity, from: &Entity) {
        for kind in self.0.kinds(from) {
            self.mirror_components(to, from, &kind);
        }
    }

    fn mirror_components(&mut self, to: &Entity, from: &Entity, kind: &ComponentKind) {
        let Some(source) = self.0.of_kind(from, kind).map(|c| c.copy_to_box()) else { return };
        if let Some(c) = self.0.of_kind_mut(to, kind) {
            c.mirror(source.as_ref());
        }
    }

    fn insert_component<R: ReplicatedComponent>(&mut self, entity: &Entity, component: R) {
        self.0.insert(entity, Box::new(component));
    }

    fn insert_boxed_component(&mut self, entity: &Entity, component: Box<dyn Replicate>) {
        self.0.insert(entity, component);
    }

    fn remove_component<R: ReplicatedComponent>(&mut self, entity: &Entity) -> Option<R> {
        let cs = self.0.entities.get_mut(entity)?;
        let at = cs.iter().position(|c| c.to_any().is::<R>())?;
        cs.remove(at).to_boxed_any().downcast::<R>().ok().map(|b| *b)
    }

    fn remove_component_of_kind(&mut self, entity: &Entity, kind: &ComponentKind) -> Option<Box<dyn Replicate>> {
        let cs = self.0.entities.get_mut(entity)?;
        let at = cs.iter().position(|c| c.kind() == *kind)?;
        Some(cs.remove(at))
    }

    fn entity_publish(
        &mut self,
        kinds: &ComponentKinds,
        converter: &dyn EntityAndGlobalEntityConverter<Entity>,
        manager: &dyn GlobalWorldManagerType,
        entity: &Entity,
    ) {
        for kind in self.0.kinds(entity) {
            self.0.publish(kinds, converter, manager, entity, &kind);
        }
    }

    fn component_publish(
        &mut self,
        kinds: &ComponentKinds,
        converter: &dyn EntityAndGlobalEntityConverter<Entity>,
        manager: &dyn GlobalWorldManagerType,
        entity: &Entity,
        kind: &ComponentKind,
    ) {
        self.0.publish(kinds, converter, manager, entity, kind);
    }

    fn entity_unpublish(&mut self, entity: &Entity) {
        for kind in self.0.kinds(entity) {
            self.component_unpublish(entity, &kind);
        }
    }

    fn component_unpublish(&mut self, entity: &Entity, kind: &ComponentKind) {
        if let Some(c) = self.0.of_kind_mut(entity, kind) {
            c.unpublish();
        }
    }

    // Delegation (a client taking authority over an entity) is not used:
    // the server owns every entity.
    fn entity_enable_delegation(
        &mut self,
        _: &ComponentKinds,
        _: &dyn EntityAndGlobalEntityConverter<Entity>,
        _: &dyn GlobalWorldManagerType,
        _: &Entity,
    ) {
    }

    fn component_enable_delegation(
        &mut self,
        _: &ComponentKinds,
        _: &dyn EntityAndGlobalEntityConverter<Entity>,
        _: &dyn GlobalWorldManagerType,
        _: &Entity,
        _: &ComponentKind,
    ) {
    }

    fn entity_disable_delegation(&mut self, _: &Entity) {}

    fn component_disable_delegation(&mut self, _: &Entity, _: &ComponentKind) {}
}
