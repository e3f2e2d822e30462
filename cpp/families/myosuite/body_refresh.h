// utils/mujoco_geom_utils.py's refresh_geom_derived_fields of myosuite 3.0.0 for one body: what
// keeps a compiled model consistent after a reset edits a body's geoms or mass in place (the
// elbow's carried weight, carried_weight.h; ObjHold's object, obj_hold.h).
//
// It compiles that body alone in a small spec: its primitive geoms as the model has them now,
// their densities and masses from the source spec scaled so that the body keeps its (current)
// mass, the compiler's inertia options. It copies back what the compiler derives from the
// geoms (bounding boxes and spheres, the body's BVH, its inertia and inertial frame, the
// same-frame flags) and runs mj_setConst on fresh data, keeping the statistics the source
// sets. envfleet builds the same small spec through MuJoCo's C API, so the compiler does the
// same arithmetic; the env edits its own copy of the model (MyoEnv::OwnWholeModel).
//
// The source is the spec the model was compiled from, read from a model file (MJCF): the
// model's own, or, for a recipe's compiled model, the recipe's spec that recipes.py saves
// beside it as XML. The reference raises NotImplementedError at a reset for the bodies it
// cannot refresh (a non-primitive geom with mass or contacts, a body whose colliding geoms
// change, a "simple" body whose inertial frame would move); envfleet checks the first at make
// and raises std::invalid_argument for all three, naming the option (`what`) that chose the
// body.
#ifndef ENVFLEET_FAMILIES_MYOSUITE_BODY_REFRESH_H_
#define ENVFLEET_FAMILIES_MYOSUITE_BODY_REFRESH_H_

#include <mujoco/mujoco.h>

#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace envfleet {
namespace myosuite {

class BodyRefresh {
 public:
  // `path`: the model file (MJCF) `m` was compiled from; `body`: the body's id in `m`; `what`:
  // the option that named it, for the errors.
  BodyRefresh(const std::string& path, const mjModel* m, int body, const std::string& what)
      : body_(body), what_(what) {
    const char* name = mj_id2name(m, mjOBJ_BODY, body);
    source_ = ReadSource(path, name != nullptr ? name : "", what);
    if (static_cast<int>(source_->geoms.size()) != m->body_geomnum[body_]) {
      throw std::invalid_argument(what + ": the model file's body '" +
                                  std::string(name != nullptr ? name : "") +
                                  "' is not the model's");
    }
    for (int i = 0; i < m->body_geomnum[body_]; ++i) {
      const int gid = m->body_geomadr[body_] + i;
      if (!Primitive(m->geom_type[gid]) &&
          (source_->geoms[i].mass != 0 || m->geom_contype[gid] || m->geom_conaffinity[gid])) {
        throw std::invalid_argument(what + ": body '" + std::string(name) +
                                    "' has a non-primitive geom with mass or contacts");
      }
    }
    scratch_.reset(mj_makeData(m));
    if (!scratch_) throw std::runtime_error("MuJoCo could not allocate mjData");
  }

  // refresh_geom_derived_fields(m, source, (body,)) after the body's geoms or mass were edited.
  void Refresh(mjModel* m) {
    RefreshBody(m);
    // mj_setConst recomputes every statistic; the source's own are kept.
    const Source& src = *source_;
    mjStatistic kept = m->stat;
    mj_resetData(m, scratch_.get());
    mj_setConst(m, scratch_.get());
    if (src.keep_meaninertia) m->stat.meaninertia = kept.meaninertia;
    if (src.keep_meanmass) m->stat.meanmass = kept.meanmass;
    if (src.keep_meansize) m->stat.meansize = kept.meansize;
    if (src.keep_extent) m->stat.extent = kept.extent;
    if (src.keep_center) {
      for (int k = 0; k < 3; ++k) m->stat.center[k] = kept.center[k];
    }
  }

 private:
  struct SourceGeom {
    double density, mass;
    mjtGeomInertia typeinertia;
  };

  // What refresh_geom_derived_fields reads from the spec the model was compiled from: the
  // body's geoms' densities and masses, its inertial clause, the compiler's options that shape
  // a body's inertia, the statistics the file sets.
  struct Source {
    std::vector<SourceGeom> geoms;
    bool explicit_inertial = false;
    double mass = 0;
    double inertia[3] = {0, 0, 0};
    double fullinertia[6] = {0, 0, 0, 0, 0, 0};
    int inertiagrouprange[2] = {0, 0};
    mjtInertiaFromGeom inertiafromgeom = mjINERTIAFROMGEOM_AUTO;
    double boundmass = 0, boundinertia = 0;
    mjtBool balanceinertia = 0;
    bool keep_meaninertia = false, keep_meanmass = false, keep_meansize = false;
    bool keep_extent = false, keep_center = false;
  };

  static bool Primitive(int type) {
    return type == mjGEOM_SPHERE || type == mjGEOM_CAPSULE || type == mjGEOM_ELLIPSOID ||
           type == mjGEOM_CYLINDER || type == mjGEOM_BOX;
  }

  // The Source of body `name` in model file `path`, read from the file parsed and compiled as
  // the reference's ModelBuilder does (about 0.1 s for the elbow): once per file and body while
  // an env holds it, shared by the pool's envs.
  static std::shared_ptr<const Source> ReadSource(const std::string& path, const std::string& name,
                                                  const std::string& what) {
    static std::mutex mutex;
    static std::map<std::string, std::weak_ptr<const Source>> cache;
    std::lock_guard<std::mutex> lock(mutex);
    std::weak_ptr<const Source>& slot = cache[path + '\n' + name];
    if (std::shared_ptr<const Source> source = slot.lock()) return source;
    char error[1024] = "";
    std::unique_ptr<mjSpec, void (*)(mjSpec*)> spec(
        mj_parseXML(path.c_str(), nullptr, error, sizeof(error)), mj_deleteSpec);
    if (!spec) {
      throw std::invalid_argument(what + " needs the model file (MJCF) of '" + path +
                                  "': " + error);
    }
    mjModel* compiled = mj_compile(spec.get(), nullptr);
    if (compiled == nullptr) {
      throw std::invalid_argument("MuJoCo could not compile the model '" + path +
                                  "': " + mjs_getError(spec.get()));
    }
    mj_deleteModel(compiled);
    const mjsBody* body = mjs_findBody(spec.get(), name.c_str());
    if (body == nullptr) throw std::invalid_argument(what + ": no body '" + name + "'");
    auto source = std::make_shared<Source>();
    for (mjsElement* e = mjs_firstChild(body, mjOBJ_GEOM, 0); e != nullptr;
         e = mjs_nextChild(body, e, 0)) {
      const mjsGeom* g = mjs_asGeom(e);
      source->geoms.push_back({g->density, g->mass, g->typeinertia});
    }
    source->explicit_inertial = body->explicitinertial;
    source->mass = body->mass;
    for (int k = 0; k < 3; ++k) source->inertia[k] = body->inertia[k];
    for (int k = 0; k < 6; ++k) source->fullinertia[k] = body->fullinertia[k];
    const mjsCompiler& compiler = spec->compiler;
    source->inertiagrouprange[0] = compiler.inertiagrouprange[0];
    source->inertiagrouprange[1] = compiler.inertiagrouprange[1];
    source->inertiafromgeom = compiler.inertiafromgeom;
    source->boundmass = compiler.boundmass;
    source->boundinertia = compiler.boundinertia;
    source->balanceinertia = compiler.balanceinertia;
    source->keep_meaninertia = !std::isnan(spec->stat.meaninertia);
    source->keep_meanmass = !std::isnan(spec->stat.meanmass);
    source->keep_meansize = !std::isnan(spec->stat.meansize);
    source->keep_extent = !std::isnan(spec->stat.extent);
    source->keep_center = !std::isnan(spec->stat.center[0]);
    slot = source;
    return source;
  }

  // _refresh_body: the body compiled alone, its derived fields copied back.
  void RefreshBody(mjModel* m) const {
    const int b = body_;
    const bool fixed = m->body_weldid[b] == 0;  // welded to the world: "simple", frame pinned
    std::unique_ptr<mjSpec, void (*)(mjSpec*)> tiny(mj_makeSpec(), mj_deleteSpec);
    const Source& src = *source_;
    tiny->compiler.inertiagrouprange[0] = src.inertiagrouprange[0];
    tiny->compiler.inertiagrouprange[1] = src.inertiagrouprange[1];
    mjsBody* body = mjs_addBody(mjs_findBody(tiny.get(), "world"), nullptr);
    std::vector<int> geom_ids;
    std::vector<mjsGeom*> tiny_geoms;
    for (int i = 0; i < m->body_geomnum[b]; ++i) {
      const int gid = m->body_geomadr[b] + i;
      if (!Primitive(m->geom_type[gid])) continue;  // massless and contact-free (checked)
      geom_ids.push_back(gid);
      mjsGeom* g = mjs_addGeom(body, nullptr);
      g->type = static_cast<mjtGeom>(m->geom_type[gid]);
      for (int k = 0; k < 3; ++k) g->size[k] = m->geom_size[3 * gid + k];
      for (int k = 0; k < 3; ++k) g->pos[k] = m->geom_pos[3 * gid + k];
      for (int k = 0; k < 4; ++k) g->quat[k] = m->geom_quat[4 * gid + k];
      g->group = m->geom_group[gid];
      g->contype = m->geom_contype[gid];
      g->conaffinity = m->geom_conaffinity[gid];
      g->density = src.geoms[i].density;
      g->mass = src.geoms[i].mass;
      g->typeinertia = src.geoms[i].typeinertia;
      tiny_geoms.push_back(g);
    }
    std::vector<int> site_ids;
    for (int s = 0; s < m->nsite; ++s) {
      if (m->site_bodyid[s] != b) continue;
      site_ids.push_back(s);
      mjsSite* site = mjs_addSite(body, nullptr);
      for (int k = 0; k < 3; ++k) site->pos[k] = m->site_pos[3 * s + k];
      for (int k = 0; k < 4; ++k) site->quat[k] = m->site_quat[4 * s + k];
    }
    if (fixed) {
      body->explicitinertial = 1;
      body->mass = m->body_mass[b];
      for (int k = 0; k < 3; ++k) body->ipos[k] = m->body_ipos[3 * b + k];
      for (int k = 0; k < 4; ++k) body->iquat[k] = m->body_iquat[4 * b + k];
      for (int k = 0; k < 3; ++k) body->inertia[k] = m->body_inertia[3 * b + k];
    } else {
      if (src.inertiafromgeom == mjINERTIAFROMGEOM_FALSE ||
          (src.inertiafromgeom == mjINERTIAFROMGEOM_AUTO && src.explicit_inertial)) {
        body->explicitinertial = 1;
        body->mass = m->body_mass[b];
        for (int k = 0; k < 3; ++k) body->ipos[k] = m->body_ipos[3 * b + k];
        const double scale = m->body_mass[b] / src.mass;
        if (std::isfinite(src.fullinertia[0])) {
          for (int k = 0; k < 6; ++k) body->fullinertia[k] = src.fullinertia[k] * scale;
        } else {
          for (int k = 0; k < 4; ++k) body->iquat[k] = m->body_iquat[4 * b + k];
          for (int k = 0; k < 3; ++k) body->inertia[k] = src.inertia[k] * scale;
        }
      } else {
        // The geoms' masses scaled so that the body keeps its (new) mass.
        const double geom_mass = CompiledBodyMass(tiny.get());
        if (geom_mass <= 0) {
          throw std::invalid_argument(what_ + ": the body has no geom mass");
        }
        const double scale = m->body_mass[b] / geom_mass;
        for (mjsGeom* g : tiny_geoms) {
          g->density *= scale;
          g->mass *= scale;
        }
      }
      tiny->compiler.boundmass = src.boundmass;
      tiny->compiler.boundinertia = src.boundinertia;
      tiny->compiler.balanceinertia = src.balanceinertia;
    }
    std::unique_ptr<mjModel, void (*)(mjModel*)> compiled(Compile(tiny.get()), mj_deleteModel);
    const int adr = m->body_bvhadr[b], num = m->body_bvhnum[b];
    if (num != compiled->body_bvhnum[1]) {
      throw std::invalid_argument(what_ + ": the body changed its colliding geoms");
    }
    if (m->body_simple[b] && compiled->body_sameframe[1] != mjSAMEFRAME_BODY) {
      throw std::invalid_argument(what_ +
                                  ": the body is compiled as simple, so its inertial frame "
                                  "cannot move");
    }
    for (size_t k = 0; k < geom_ids.size(); ++k) {
      const int gid = geom_ids[k];
      for (int a = 0; a < 6; ++a) m->geom_aabb[6 * gid + a] = compiled->geom_aabb[6 * k + a];
      m->geom_rbound[gid] = compiled->geom_rbound[k];
      m->geom_sameframe[gid] = compiled->geom_sameframe[k];
    }
    for (size_t k = 0; k < site_ids.size(); ++k) {
      m->site_sameframe[site_ids[k]] = compiled->site_sameframe[k];
    }
    if (!fixed) {
      for (int a = 0; a < 3; ++a) m->body_inertia[3 * b + a] = compiled->body_inertia[3 + a];
      for (int a = 0; a < 3; ++a) m->body_ipos[3 * b + a] = compiled->body_ipos[3 + a];
      for (int a = 0; a < 4; ++a) m->body_iquat[4 * b + a] = compiled->body_iquat[4 + a];
      m->body_sameframe[b] = compiled->body_sameframe[1];
    }
    const int from = compiled->body_bvhadr[1];
    for (int n = 0; n < num; ++n) {
      for (int a = 0; a < 6; ++a) {
        m->bvh_aabb[6 * (adr + n) + a] = compiled->bvh_aabb[6 * (from + n) + a];
      }
      for (int a = 0; a < 2; ++a) {
        m->bvh_child[2 * (adr + n) + a] = compiled->bvh_child[2 * (from + n) + a];
      }
      m->bvh_depth[adr + n] = compiled->bvh_depth[from + n];
      // Leaves hold geom ids: the small model's mapped back to the model's.
      const int node = compiled->bvh_nodeid[from + n];
      m->bvh_nodeid[adr + n] = node >= 0 ? geom_ids[node] : node;
    }
  }

  static mjModel* Compile(mjSpec* spec) {
    mjModel* compiled = mj_compile(spec, nullptr);
    if (compiled == nullptr) {
      throw std::runtime_error(std::string("MuJoCo could not compile a refreshed body: ") +
                               mjs_getError(spec));
    }
    return compiled;
  }

  static double CompiledBodyMass(mjSpec* spec) {
    mjModel* compiled = Compile(spec);
    const double mass = compiled->body_mass[1];
    mj_deleteModel(compiled);
    return mass;
  }

  int body_;
  std::string what_;
  std::shared_ptr<const Source> source_;
  std::unique_ptr<mjData, void (*)(mjData*)> scratch_{nullptr, mj_deleteData};
};

}  // namespace myosuite
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MYOSUITE_BODY_REFRESH_H_
